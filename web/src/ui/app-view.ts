// The page: renders the cockpit's snapshot (every host's workspace) and turns clicks and keys into
// intents, each sent to the workspace that holds the tab. The tab bar, the session list, the
// sidebar and the key row are their own components; this class lays them out, runs the keyboard
// map (keymap.ts), keeps the page's title and icon counting the sessions that need a person, and
// decides where the focus goes after each action. What it listens to (the window, the document,
// the cockpit, its terminals) ends with dispose().
import { DisposableStore } from '../core/disposable';
import { WaitingAlerts } from '../sessions/waiting-alerts';
import { MemoryStore, type KeyValueStore } from '../workspace/terminal-port';
import { NotifyButton } from './notify-button';
import type { ShownActivity } from '../sessions/session-rows';
import { attentionView, pageTitle } from '../workspace/attention-view';
import type { Cockpit, CockpitSnapshot } from '../workspace/cockpit';
import type { TabView } from '../workspace/tab-session';
import { syncPresentation } from '../sessions/session-list-sync';
import type { TabOffer } from '../sessions/tab-messages';
import type { AccessProblem } from '../client/access-watch';
import { banners } from './banners';
import { askCommand, askName, confirmClose, isDialogOpen, showPanel, showShortcuts } from './dialogs';
import { fill, h } from './dom';
import { faviconUrl, icon } from './icons';
import { KeyRow } from './key-row';
import { commandFor, neighbourTab, type Command, type FocusArea } from './keymap';
import { SearchBar } from './search-bar';
import { SessionList } from './session-list';
import { Sidebar } from './sidebar';
import { indicator } from './status-text';
import { TabBar } from './tab-bar';
import { TokenButton, type TokenControl } from './token-button';
import { enableTouchScroll } from './touch-scroll';
import { XtermTerminal } from './xterm-terminal';

interface TerminalSlot {
  host: HTMLElement;
  overlay: HTMLElement;
  /** "Sized for another viewer (W×H) — Take it", while the session has another viewer's size. */
  sizeMarker: HTMLElement;
  xterm: XtermTerminal;
}

export interface AppViewOptions {
  /** The daemon's address, for messages. */
  origin: string;
  token: TokenControl;
  /** Where the notification opt-in is remembered; in memory when absent. */
  prefs?: KeyValueStore;
  /** How the page reaches the daemon, shown in the page's details when it is not direct (e.g. "through relay"). */
  path?: string;
  /** Whether the page reaches its host through the relay that served it (banners name the relay then). */
  via?: 'direct' | 'relay';
}

const NOTE_MS = 8_000;

export class AppView {
  private cockpit: Cockpit | null = null;
  private access: AccessProblem | null = null;
  private readonly slots = new Map<string, TerminalSlot>();
  private readonly indicatorEl = h('span.indicator', { 'data-testid': 'indicator', role: 'status' });
  private readonly metaEl = h('span.meta');
  private readonly bannersEl = h('div.banners', { 'data-testid': 'banners' });
  private readonly keyRow: KeyRow;
  private readonly favicon: HTMLLinkElement;
  private readonly noticeEl = h('div.notice-strip');
  private readonly terminalsEl = h('div.terminals');
  private readonly placeholderEl = h('div.placeholder');
  private readonly toastsEl = h('div.toasts', { 'aria-live': 'polite' });
  private readonly newTerminalButton: HTMLButtonElement;
  private readonly search: SearchBar;
  private readonly tabBar: TabBar;
  private readonly sessionList: SessionList;
  private readonly sidebar: Sidebar;
  private readonly notifyButton: NotifyButton;
  private readonly waitingAlerts = new WaitingAlerts();
  private readonly lifetime = new DisposableStore();
  private note: string | null = null;
  private noteTimer = 0;
  private renderQueued = false;
  private shownTabId: string | null = null;

  constructor(root: HTMLElement, private readonly options: AppViewOptions) {
    this.search = new SearchBar(() => this.activeSlot()?.xterm ?? null);
    this.tabBar = new TabBar({
      enter: (tabId) => {
        this.cockpit?.activate(tabId);
        this.focusTerminalNow();
      },
      activate: (tabId) => this.cockpit?.activate(tabId),
      rename: (tab) => void this.rename(tab),
      close: (tab) => void this.close(tab),
    });
    this.sessionList = new SessionList((hostKey, sessionId) => this.openSession(hostKey, sessionId), this.lifetime.signal);
    this.newTerminalButton = h('button.primary', { type: 'button', 'data-testid': 'new-terminal', title: 'New terminal (Ctrl+Shift+`)', onclick: () => this.newTerminal() }, '+ Terminal');
    const newCommand = h('button', {
      type: 'button', 'data-testid': 'new-command', title: 'Start any command, e.g. an agent', onclick: () => void this.newCommand(),
    }, '+ Command');
    const shortcuts = h('button.icon.shortcuts-button', {
      type: 'button', 'aria-label': 'Keyboard shortcuts', title: 'Keyboard shortcuts', 'data-testid': 'shortcuts-button',
      onclick: () => void showShortcuts(),
    }, icon('keyboard'));
    const tokenButton = new TokenButton(options.token, (text) => this.showNote(text));
    // The top bar is for status: the page's details and the token's control live behind "More".
    const more = h('button.icon.more-button', {
      type: 'button', 'aria-label': 'More: this page\'s details and token', title: 'More: this page\'s details and token',
      'data-testid': 'more-button', 'aria-haspopup': 'dialog',
      onclick: () => void showPanel('This page', [h('p.page-details', { 'data-testid': 'page-details' }, this.metaEl.textContent || 'Not connected yet.'),
        tokenButton.element]),
    }, icon('more'));
    this.notifyButton = new NotifyButton(options.prefs ?? new MemoryStore(), (text) => this.showNote(text),
      (alert) => this.openSession(alert.hostKey, alert.sessionId));
    this.keyRow = new KeyRow((data) => {
      const id = this.cockpit?.snapshot.activeTabId;
      if (id) this.cockpit?.workspaceOf(id)?.input(id, data);
    }, () => ({ applicationCursorKeys: this.activeSlot()?.xterm.term.modes.applicationCursorKeysMode ?? false }));
    this.favicon = document.querySelector<HTMLLinkElement>('link[rel~=icon]') ?? document.head.appendChild(h('link', { rel: 'icon' }));
    const sidebarEl = h('aside.sidebar', { 'aria-label': 'Sessions' },
      h('div.sidebar-actions', {}, this.newTerminalButton, newCommand),
      h('h2.sidebar-title', {}, 'Sessions'), this.sessionList.element);
    const workarea = h('main.workarea', {}, this.tabBar.element, this.noticeEl,
      h('div.terminal-stack', {}, this.terminalsEl, this.placeholderEl, this.search.element), this.keyRow.element);
    const app = h('div.app', {});
    this.sidebar = new Sidebar(app, sidebarEl, () => this.tabBar.revealActive(), this.lifetime.signal);
    fill(app,
      h('header.header', {},
        h('div.topbar', {}, this.sidebar.toggle, h('h1.brand', {}, 'limpet'), this.indicatorEl, this.metaEl, this.notifyButton.element,
          shortcuts, more)),
      h('div.main', {}, sidebarEl, workarea, this.bannersEl),
      this.toastsEl);
    fill(root, app);
    // In a narrow window the open sidebar lies over the terminal: using the terminal closes it.
    const signal = this.lifetime.signal;
    workarea.addEventListener('pointerdown', () => this.sidebar.overlays && this.sidebar.setOpen(false), { signal });
    addEventListener('keydown', (event) => this.onKeyDown(event), { capture: true, signal });
    const resizes = new ResizeObserver(() => {
      this.activeSlot()?.xterm.fit();
      this.tabBar.revealActive();
    });
    resizes.observe(this.terminalsEl);
    this.lifetime.add({ dispose: () => resizes.disconnect() });
    // A page shown again may have other fonts or zoom: its terminal is measured again.
    document.addEventListener('visibilitychange', () => document.hidden || this.activeSlot()?.xterm.shown(), { signal });
  }

  bind(cockpit: Cockpit): void {
    this.cockpit = cockpit;
    this.lifetime.add(cockpit.subscribe(() => this.queueRender()));
    const signal = this.lifetime.signal;
    addEventListener('online', () => this.queueRender(), { signal });
    addEventListener('offline', () => this.queueRender(), { signal });
    this.queueRender();
  }

  /** The page is torn down: every listener it added goes, and every terminal it made. */
  dispose(): void {
    this.lifetime.dispose();
    for (const slot of [...this.slots.values()]) slot.xterm.dispose();
    clearTimeout(this.noteTimer);
  }

  /** What the access check found (wrong token, unreachable daemon), or null once connected. */
  setAccess(problem: AccessProblem | null): void {
    this.access = problem;
    this.queueRender();
  }

  /** The workspace's terminal factory: one xterm per tab, kept while the tab lives. */
  createTerminal(tabId: string): XtermTerminal {
    const overlay = h('div.overlay');
    const mount = h('div.xterm-mount');
    const sizeMarker = h('div.size-marker.hidden', { 'data-testid': 'size-marker', role: 'status' });
    const host = h('div.term-host', { 'data-tab-id': tabId, id: `panel-${tabId}`, role: 'tabpanel', 'aria-labelledby': `tab-${tabId}` },
      mount, sizeMarker, overlay);
    this.terminalsEl.append(host);
    const xterm = new XtermTerminal(mount, {
      onInput: (data, reply) => (reply ? this.cockpit?.workspaceOf(tabId)?.reply(tabId, data)
        : this.cockpit?.workspaceOf(tabId)?.input(tabId, this.keyRow.typed(data))),
      onViewerSize: () => this.cockpit?.workspaceOf(tabId)?.viewerResized(tabId),
      onPointerDown: () => this.cockpit?.workspaceOf(tabId)?.takeSize(tabId),
    });
    enableTouchScroll(mount, xterm.term, xterm.signal);
    const slot = { host, overlay, sizeMarker, xterm };
    this.slots.set(tabId, slot);
    const dispose = xterm.dispose.bind(xterm);
    xterm.dispose = () => {
      dispose();
      host.remove();
      this.slots.delete(tabId);
    };
    return xterm;
  }

  /** A tab's xterm.js terminal and the width of its cells as rendered (the browser tests read them cell by cell). */
  terminalOf(tabId: string): { term: unknown; cellWidth: number } | null {
    const xterm = this.slots.get(tabId)?.xterm;
    return xterm ? { term: xterm.term, cellWidth: xterm.cellWidth() } : null;
  }

  /** The visible text of a tab's terminal (used by the browser tests). */
  screenText(tabId: string): string {
    const term = this.slots.get(tabId)?.xterm.term;
    if (!term) return '';
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return lines.join('\n').replace(/\n+$/, '');
  }

  /** The first scrollback line a tab's terminal shows (used by the browser tests). */
  viewportTop(tabId: string): number {
    return this.slots.get(tabId)?.xterm.term.buffer.active.viewportY ?? -1;
  }

  // ---- keyboard and focus -------------------------------------------------------------------

  private onKeyDown(event: KeyboardEvent): void {
    if (!this.cockpit || isDialogOpen()) return;
    const command = commandFor(event, focusArea(document.activeElement));
    if (!command) return;
    // Taken before xterm sees it: a page shortcut never reaches the program.
    event.preventDefault();
    event.stopPropagation();
    this.run(command, this.cockpit);
  }

  private run(command: Command, cockpit: Cockpit): void {
    const s = cockpit.snapshot;
    switch (command) {
      case 'new-terminal':
        return this.newTerminal();
      case 'close-tab':
      case 'rename-tab': {
        const id = this.tabBar.focusedTabId() ?? s.activeTabId;
        const tab = s.tabs.find((t) => t.tabId === id);
        if (tab) void (command === 'close-tab' ? this.close(tab) : this.rename(tab));
        return;
      }
      case 'next-tab':
      case 'previous-tab': {
        const id = neighbourTab(s.tabs.map((t) => t.tabId), s.activeTabId, command === 'next-tab' ? 1 : -1);
        if (id) cockpit.activate(id);
        return this.focusTerminalNow();
      }
      case 'focus-sessions': {
        if (!this.sidebar.isOpen) this.sidebar.setOpen(true);
        this.flushRender();
        const shown = s.tabs.find((t) => t.tabId === s.activeTabId);
        if (!this.sessionList.focus(shown?.hostKey ?? null, shown?.sessionId ?? null)) this.newTerminalButton.focus();
        return;
      }
      case 'leave-terminal':
        if (s.tabs.length > 0) this.tabBar.focusActive();
        else this.newTerminalButton.focus();
        return;
      case 'search':
        return this.search.open();
      case 'back-to-terminal':
        this.closeOverlaidSidebar();
        return this.focusTerminalNow();
    }
  }

  private newTerminal(): void {
    this.cockpit?.newTerminal();
    this.closeOverlaidSidebar();
    this.focusTerminalNow();
  }

  private async newCommand(): Promise<void> {
    const spec = await askCommand();
    if (!spec || !this.cockpit) return;
    this.cockpit.newTerminal(spec);
    this.closeOverlaidSidebar();
    this.focusTerminalNow();
  }

  private openSession(hostKey: string, sessionId: string): void {
    this.cockpit?.openSession(hostKey, sessionId);
    this.closeOverlaidSidebar();
    this.focusTerminalNow();
  }

  /** A sidebar lying over the terminal (narrow window) has done its job once a terminal is chosen. */
  private closeOverlaidSidebar(): void {
    if (this.sidebar.overlays) this.sidebar.setOpen(false);
  }

  /** Renders now (so a new or newly active terminal is visible) and puts the focus in it. */
  private focusTerminalNow(): void {
    this.flushRender();
    this.activeSlot()?.xterm.focus();
  }

  private async rename(tab: TabView): Promise<void> {
    const name = await askName(tab.name);
    if (name === null) return;
    this.cockpit?.workspaceOf(tab.tabId)?.rename(tab.tabId, name);
    this.focusTerminalNow();
  }

  private async close(tab: TabView): Promise<void> {
    if (!(await confirmClose(tab.name))) return;
    this.cockpit?.workspaceOf(tab.tabId)?.close(tab.tabId);
    this.focusTerminalNow();
  }

  /** Restart, New, Start again or Try again: the program runs in the tab, and the focus goes there. */
  private takeOffer(tabId: string, action: TabOffer['action']): void {
    const workspace = this.cockpit?.workspaceOf(tabId);
    if (action === 'retry') workspace?.retry(tabId);
    else if (action === 'revive' || action === 'revive_fresh') workspace?.revive(tabId, action === 'revive_fresh');
    else workspace?.restart(tabId);
    this.focusTerminalNow();
  }

  private showNote(text: string): void {
    this.note = text;
    clearTimeout(this.noteTimer);
    this.noteTimer = window.setTimeout(() => {
      this.note = null;
      this.queueRender();
    }, NOTE_MS);
    this.queueRender();
  }

  // ---- rendering ----------------------------------------------------------------------------

  private activeSlot(): TerminalSlot | undefined {
    const id = this.cockpit?.snapshot.activeTabId;
    return id ? this.slots.get(id) : undefined;
  }

  private queueRender(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => this.flushRender());
  }

  private flushRender(): void {
    this.renderQueued = false;
    if (this.cockpit) this.render(this.cockpit.snapshot);
  }

  private render(s: CockpitSnapshot): void {
    const primary = s.hosts[0]!;
    const p = primary.snapshot;
    const online = navigator.onLine !== false;
    const via = this.options.via ?? 'direct';
    const tone = indicator(p, this.access, via, online);
    this.indicatorEl.dataset.tone = tone.tone;
    this.indicatorEl.textContent = tone.text;
    const others = s.hosts.length - 1;
    const reached = s.hosts.slice(1).filter((host) => host.snapshot.handshake === 'ready').length;
    this.metaEl.textContent = [p.daemon ? `${p.daemon.backend} backend · v${p.daemon.version}` : '', this.options.path ?? '',
      others > 0 ? `${reached} of ${others} other host${others > 1 ? 's' : ''} reached` : ''].filter(Boolean).join(' · ');
    fill(this.bannersEl, ...banners(p, this.access, { origin: this.options.origin, via, online }));
    this.sessionList.render(s, this.access === 'wrong_token');
    const view = attentionView(s);
    const hostName = new Map(s.hosts.map((host) => [host.key, host.name]));
    this.tabBar.render(s.tabs, s.activeTabId, activityByTab(s),
      (tabId) => {
        const key = s.tabs.find((t) => t.tabId === tabId)?.hostKey;
        return key && key !== primary.key ? hostName.get(key) ?? null : null;
      });
    this.notifyButton.notify(this.waitingAlerts.update([...view.needsYou, ...view.groups.flatMap((g) => g.rows)]));
    const title = pageTitle(view.count);
    if (document.title !== title) document.title = title;
    const href = faviconUrl(view.count);
    if (this.favicon.getAttribute('href') !== href) this.favicon.setAttribute('href', href);
    this.renderTerminals(s);
    this.renderToasts(s);
  }

  private renderTerminals(s: CockpitSnapshot): void {
    for (const host of s.hosts) {
      const linkDown = host.snapshot.host.status !== 'online' || host.snapshot.handshake !== 'ready';
      for (const tab of host.snapshot.tabs) {
        const slot = this.slots.get(tab.tabId);
        if (!slot) continue;
        const active = tab.tabId === s.activeTabId;
        slot.host.classList.toggle('hidden', !active);
        this.renderOverlay(slot.overlay, tab, linkDown);
        this.renderSizeMarker(slot.sizeMarker, tab);
      }
    }
    const active = s.tabs.find((t) => t.tabId === s.activeTabId);
    this.renderNotice(active);
    const showPlaceholder = s.tabs.length === 0 && s.hosts[0]!.snapshot.sync.status === 'ready';
    this.placeholderEl.classList.toggle('hidden', !showPlaceholder);
    if (showPlaceholder && !this.placeholderEl.hasChildNodes()) {
      fill(this.placeholderEl, h('p', {}, 'No terminal open in this tab.'),
        h('button.primary', { type: 'button', onclick: () => this.newTerminal() }, 'Open a terminal'));
    }
    if (s.activeTabId !== this.shownTabId) {
      this.shownTabId = s.activeTabId;
      const slot = this.activeSlot();
      if (slot) {
        slot.xterm.shown();
        slot.xterm.focus();
      }
    }
  }

  private renderOverlay(overlay: HTMLElement, tab: TabView, linkDown: boolean): void {
    let kind = '';
    if (!tab.loadedOnce && tab.phase !== 'failed') kind = 'first-open';
    else if (tab.phase === 'reconnecting' || (linkDown && tab.phase === 'live')) kind = 'reconnecting';
    if (overlay.dataset.kind === kind && kind !== 'reconnecting') return;
    overlay.dataset.kind = kind;
    overlay.className = `overlay ${kind}`;
    if (kind === 'first-open') fill(overlay, h('div.spinner', { role: 'status', 'aria-label': 'Opening' }));
    else if (kind === 'reconnecting') {
      const label = this.access === 'wrong_token' ? 'stopped: the daemon refused the token' : 'reconnecting…';
      fill(overlay, h('div.reconnecting-label', {}, h('div.spinner.small', { 'aria-hidden': 'true' }), label));
    } else fill(overlay);
  }

  private renderSizeMarker(marker: HTMLElement, tab: TabView): void {
    const size = tab.sizedFor;
    const text = size ? `Sized for another viewer (${size.cols}×${size.rows})` : '';
    marker.classList.toggle('hidden', !size);
    if (marker.dataset.text === text) return;
    marker.dataset.text = text;
    if (!size) return fill(marker);
    fill(marker, `${text} — `, h('button', {
      type: 'button', 'data-action': 'take-size', title: 'Give the session this window\'s size', onclick: () => {
        this.cockpit?.workspaceOf(tab.tabId)?.takeSize(tab.tabId);
        this.activeSlot()?.xterm.focus();
      },
    }, 'Take it'));
  }

  private renderNotice(tab: TabView | undefined): void {
    const parts: HTMLElement[] = [];
    if (tab?.notice) parts.push(h('div.notice', { 'data-testid': 'tab-notice' }, tab.notice));
    const offer = tab?.offer;
    if (tab && offer) {
      const exited = tab.phase === 'exited';
      parts.push(h(`div.notice.${exited ? 'exited' : 'failed'}`, { 'data-testid': exited ? 'tab-exited' : 'tab-offer', 'data-offer': offer.kind },
        `${offer.message} `,
        h('button', { type: 'button', 'data-action': offer.action, onclick: () => this.takeOffer(tab.tabId, offer.action) }, offer.button),
        ...(offer.secondary ? [h('button', { type: 'button', 'data-action': offer.secondary.action,
          onclick: () => this.takeOffer(tab.tabId, offer.secondary!.action) }, offer.secondary.button)] : []),
        h('button', { type: 'button', 'data-action': 'close', onclick: () => void this.close(tab) }, 'Close')));
    }
    fill(this.noticeEl, ...parts);
  }

  private renderToasts(s: CockpitSnapshot): void {
    const presentation = syncPresentation(s.hosts[0]!.snapshot.sync);
    const toasts = [presentation.toast, ...s.hosts.flatMap((host) => host.snapshot.toasts.map((t) => t.text)), this.note]
      .filter((t): t is string => !!t);
    fill(this.toastsEl, ...toasts.map((text) => h('div.toast', { 'data-testid': 'toast' }, text)));
  }
}

/** Where the focus is, in the keyboard map's terms. */
function focusArea(element: Element | null): FocusArea {
  if (!element) return 'other';
  if (element.closest('.xterm')) return 'terminal';
  if (element.closest('[role=tablist]')) return 'tabs';
  if (element.closest('.session-list')) return 'sessions';
  if (element.matches('input, textarea, select, [contenteditable]')) return 'field';
  return 'other';
}

/** What each tab's session does, by tab id, from every host's session rows. */
function activityByTab(s: CockpitSnapshot): Map<string, { activity: ShownActivity; text: string }> {
  const out = new Map<string, { activity: ShownActivity; text: string }>();
  for (const host of s.hosts) {
    for (const row of host.snapshot.sessionRows) {
      if (row.tabId && row.activity && row.activityText) out.set(row.tabId, { activity: row.activity, text: row.activityText });
    }
  }
  return out;
}
