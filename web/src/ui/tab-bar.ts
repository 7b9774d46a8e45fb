// The tab bar: an ARIA tablist with one Tab stop (roving tabindex). ←/→ and Home/End move the
// focus, Enter or Space shows the tab and puts the focus in its terminal. Rename and close also
// have keys (F2, Delete; see keymap.ts, announced with aria-keyshortcuts), so their small buttons
// are for the mouse only: out of the Tab order and hidden from assistive technology (a tablist may
// hold nothing but tabs). A tab holding keys typed while reconnecting shows how many are pending.
import type { ShownActivity } from '../sessions/session-rows';
import type { TabView } from '../workspace/tab-session';
import { fill, h } from './dom';
import { icon, type IconName } from './icons';
import { rovingTarget } from './keymap';

export interface TabBarActions {
  /** Shows the tab and puts the focus in its terminal. */
  enter(tabId: string): void;
  /** Shows the tab (a click). */
  activate(tabId: string): void;
  rename(tab: TabView): void;
  close(tab: TabView): void;
}

const PHASE_WORDS: Record<TabView['phase'], string> = {
  opening: 'opening', live: '', reconnecting: 'reconnecting', exited: 'exited', failed: 'failed',
};

export class TabBar {
  readonly element: HTMLElement;
  private tabs: TabView[] = [];
  private activeTabId: string | null = null;
  /** The tab that holds the bar's Tab stop. */
  private rovingId: string | null = null;
  private signature = '';
  private activity = new Map<string, { activity: ShownActivity; text: string }>();
  private hostOf: (tabId: string) => string | null = () => null;

  constructor(private readonly actions: TabBarActions) {
    this.element = h('div.tabbar', { role: 'tablist', 'aria-label': 'Terminals', 'data-testid': 'tabbar' });
    this.element.onkeydown = (event) => this.onKey(event);
  }

  /**
   * Renders when something shown changed, keeping the focus on the tab that had it. `activity`:
   * what each tab's program does, by tab id; `hostOf`: the host a tab's session runs on, for tabs
   * of another host than the page's own (shown before the name).
   */
  render(tabs: TabView[], activeTabId: string | null, activity = new Map<string, { activity: ShownActivity; text: string }>(),
    hostOf: (tabId: string) => string | null = () => null): void {
    this.hostOf = hostOf;
    const signature = JSON.stringify([activeTabId, tabs.map((t) => [t.tabId, t.name, t.phase, t.sessionId, t.pendingKeys,
      activity.get(t.tabId)?.activity ?? null, hostOf(t.tabId)])]);
    if (signature === this.signature) return;
    const activeChanged = activeTabId !== this.activeTabId;
    this.signature = signature;
    this.tabs = tabs;
    this.activity = activity;
    this.activeTabId = activeTabId;
    if (activeChanged || !tabs.some((t) => t.tabId === this.rovingId)) this.rovingId = activeTabId ?? tabs[0]?.tabId ?? null;
    const focused = this.focusedTabId();
    fill(this.element, ...tabs.map((tab) => this.renderTab(tab)));
    if (focused) this.handle(focused)?.focus();
    this.revealActive();
  }

  /** The tab whose handle (or button) has the focus, if any. */
  focusedTabId(): string | null {
    const focused = document.activeElement;
    if (!focused || !this.element.contains(focused)) return null;
    return focused.closest<HTMLElement>('[data-tab-id]')?.dataset.tabId ?? null;
  }

  focusActive(): void {
    const id = this.activeTabId ?? this.tabs[0]?.tabId;
    if (!id) return;
    this.rovingId = id;
    this.updateTabStops();
    this.handle(id)?.focus();
  }

  /** Scrolls the active tab into view (after a switch, or when the bar got narrower). */
  revealActive(): void {
    const active = this.activeTabId ? this.element.querySelector(`.tab[data-tab-id="${this.activeTabId}"]`) : null;
    active?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  private renderTab(tab: TabView): HTMLElement {
    const active = tab.tabId === this.activeTabId;
    const phase = PHASE_WORDS[tab.phase];
    // What the agent does, as a word beside the name (part of the tab's accessible name).
    const doing = tab.phase === 'live' && tab.sessionId ? this.activity.get(tab.tabId) ?? null : null;
    const host = this.hostOf(tab.tabId);
    return h(`div.tab${active ? '.active' : ''}`, {
      'data-tab-id': tab.tabId, 'data-session-id': tab.sessionId ?? '', 'data-phase': tab.phase, role: 'presentation',
      'data-activity': doing?.activity ?? '',
      onclick: () => this.actions.activate(tab.tabId),
      ondblclick: () => this.actions.rename(tab),
    },
    h('div.tab-handle', {
      role: 'tab', id: `tab-${tab.tabId}`, 'aria-selected': String(active), 'aria-controls': `panel-${tab.tabId}`,
      tabindex: tab.tabId === this.rovingId ? '0' : '-1', title: [host ? `${host}: ` : '', tab.name, phase ? ` (${phase})` : '', doing ? ` — ${doing.text}` : '', tab.pendingKeys > 0 ? `, ${pendingText(tab.pendingKeys)}` : ''].join(''),
      'aria-keyshortcuts': 'F2 Delete',
    },
    h(`span.dot.${tab.phase}`, { 'aria-hidden': 'true' }),
    host ? h('span.tab-host', {}, host, h('span.visually-hidden', {}, ': ')) : null,
    h('span.tab-name', {}, tab.name),
    phase ? h('span.visually-hidden', {}, ` (${phase})`) : null,
    doing ? h('span.visually-hidden', {}, ', ') : null,
    doing ? h(`span.activity.${doing.activity}`, { 'data-testid': 'tab-activity' }, doing.text) : null,
    tab.pendingKeys > 0 ? h('span.state.starting.pending-keys', { 'data-testid': 'pending-keys' },
      h('span.visually-hidden', {}, ', '), pendingText(tab.pendingKeys)) : null),
    this.mouseButton('rename', `Rename ${tab.name}`, 'Rename (F2)', 'pencil', () => this.actions.rename(tab)),
    this.mouseButton('close', `Close ${tab.name}`, 'Close: ends the program (Ctrl+Shift+X)', 'close', () => this.actions.close(tab)));
  }

  /** A small button for the mouse: it never takes the focus, so a cancelled dialog gives it back to where it was. */
  private mouseButton(action: string, label: string, title: string, glyph: IconName, run: () => void): HTMLElement {
    return h('button.icon', {
      type: 'button', tabindex: '-1', 'aria-hidden': 'true', 'data-action': action, 'aria-label': label, title,
      onmousedown: (e: Event) => e.preventDefault(),
      onclick: (e: Event) => {
        e.stopPropagation();
        run();
      },
    }, icon(glyph));
  }

  private onKey(event: KeyboardEvent): void {
    const id = this.focusedTabId();
    if (!id || event.ctrlKey || event.altKey || event.metaKey || event.shiftKey) return;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      this.actions.enter(id);
      return;
    }
    const index = this.tabs.findIndex((t) => t.tabId === id);
    const target = rovingTarget(event.key, index, this.tabs.length, 'horizontal');
    if (target === null) return;
    event.preventDefault();
    this.rovingId = this.tabs[target]!.tabId;
    this.updateTabStops();
    const handle = this.handle(this.rovingId);
    handle?.focus();
    handle?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  private updateTabStops(): void {
    for (const handle of this.element.querySelectorAll<HTMLElement>('[role=tab]')) {
      handle.tabIndex = handle.id === `tab-${this.rovingId}` ? 0 : -1;
    }
  }

  private handle(tabId: string): HTMLElement | null {
    return this.element.querySelector<HTMLElement>(`.tab[data-tab-id="${tabId}"] [role=tab]`);
  }
}

/** The badge on a tab holding keys typed while reconnecting (part of the tab's accessible name). */
function pendingText(keys: number): string {
  return `${keys} key${keys > 1 ? 's' : ''} pending`;
}
