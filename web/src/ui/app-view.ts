// The page: renders WorkspaceSnapshots and turns clicks and keys into workspace intents.
import type { Workspace, WorkspaceSnapshot } from '../workspace/workspace';
import type { TabView } from '../workspace/tab-session';
import { syncPresentation } from '../sessions/session-list-sync';
import { askCommand, askName, confirmClose } from './dialogs';
import { fill, h } from './dom';
import { commandText, indicator } from './status-text';
import { XtermTerminal } from './xterm-terminal';
import { SearchBar } from './search-bar';

interface TerminalSlot {
  host: HTMLElement;
  overlay: HTMLElement;
  xterm: XtermTerminal;
}

export class AppView {
  private workspace: Workspace | null = null;
  private readonly slots = new Map<string, TerminalSlot>();
  private readonly indicatorEl = h('span.indicator', { 'data-testid': 'indicator' });
  private readonly metaEl = h('span.meta');
  private readonly bannersEl = h('div.banners');
  private readonly sessionsEl = h('div.session-list', { 'data-testid': 'session-list' });
  private readonly tabbarEl = h('nav.tabbar', { 'data-testid': 'tabbar' });
  private readonly noticeEl = h('div.notice-strip');
  private readonly terminalsEl = h('div.terminals');
  private readonly placeholderEl = h('div.placeholder');
  private readonly toastsEl = h('div.toasts', { 'aria-live': 'polite' });
  private readonly search: SearchBar;
  private renderQueued = false;
  private shownTabId: string | null = null;

  constructor(root: HTMLElement) {
    this.search = new SearchBar(() => this.activeSlot()?.xterm ?? null);
    const newTerminal = h('button.primary', { 'data-testid': 'new-terminal', onclick: () => this.workspace?.newTerminal() }, '+ Terminal');
    const newCommand = h('button', {
      'data-testid': 'new-command',
      onclick: async () => {
        const spec = await askCommand();
        if (spec) this.workspace?.newTerminal(spec);
      },
    }, '+ Command');
    fill(root, h('div.app', {},
      h('header.topbar', {}, h('span.brand', {}, 'limpet'), this.indicatorEl, this.metaEl),
      this.bannersEl,
      h('div.main', {},
        h('aside.sidebar', {}, h('div.sidebar-actions', {}, newTerminal, newCommand), h('h3', {}, 'Sessions'), this.sessionsEl),
        h('section.workarea', {}, this.tabbarEl, this.noticeEl,
          h('div.terminal-stack', {}, this.terminalsEl, this.placeholderEl, this.search.element))),
      this.toastsEl));
    new ResizeObserver(() => this.activeSlot()?.xterm.fit()).observe(this.terminalsEl);
  }

  bind(workspace: Workspace): void {
    this.workspace = workspace;
    workspace.subscribe(() => this.queueRender());
    this.queueRender();
  }

  /** The workspace's terminal factory: one xterm per tab, kept while the tab lives. */
  createTerminal(tabId: string): XtermTerminal {
    const overlay = h('div.overlay');
    const mount = h('div.xterm-mount');
    const host = h('div.term-host', { 'data-tab-id': tabId }, mount, overlay);
    this.terminalsEl.append(host);
    const xterm = new XtermTerminal(mount, {
      onInput: (data) => this.workspace?.input(tabId, data),
      onResize: (cols, rows) => this.workspace?.resize(tabId, cols, rows),
      onSearchRequest: () => this.search.open(),
    });
    const slot = { host, overlay, xterm };
    this.slots.set(tabId, slot);
    const dispose = xterm.dispose.bind(xterm);
    xterm.dispose = () => {
      dispose();
      host.remove();
      this.slots.delete(tabId);
    };
    return xterm;
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

  private activeSlot(): TerminalSlot | undefined {
    const id = this.workspace?.snapshot.activeTabId;
    return id ? this.slots.get(id) : undefined;
  }

  private queueRender(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      if (this.workspace) this.render(this.workspace.snapshot);
    });
  }

  private render(s: WorkspaceSnapshot): void {
    const tone = indicator(s);
    this.indicatorEl.dataset.tone = tone.tone;
    this.indicatorEl.textContent = tone.text;
    this.metaEl.textContent = s.daemon ? `${s.daemon.backend} backend · v${s.daemon.version}` : '';
    this.renderBanners(s);
    this.renderSessions(s);
    this.renderTabs(s);
    this.renderTerminals(s);
    this.renderToasts(s);
  }

  private renderBanners(s: WorkspaceSnapshot): void {
    const banners: HTMLElement[] = [];
    if (s.handshake === 'recovering') {
      banners.push(h('div.banner.info', { 'data-testid': 'banner-recovering' }, 'The daemon is recovering its sessions after a restart; your tabs reconnect as soon as it is done.'));
    }
    for (const line of [...(s.daemon?.degraded ?? []), ...s.warnings]) {
      banners.push(h('div.banner.warn', { 'data-testid': 'banner-degraded' }, `Degraded: ${line}`));
    }
    if (s.host.connection?.reason?.kind === 'rejected') {
      banners.push(h('div.banner.error', {}, `The daemon refused this client: ${s.host.connection.reason.reason || 'protocol mismatch'}. Reload the page.`));
    }
    fill(this.bannersEl, ...banners);
  }

  private renderSessions(s: WorkspaceSnapshot): void {
    const presentation = syncPresentation(s.sync);
    if (presentation.blockingSpinner || (s.sync.status === 'idle' && !s.sync.everLoaded)) {
      return fill(this.sessionsEl, h('div.list-loading', {}, h('div.spinner', { 'aria-label': 'loading' })));
    }
    if (presentation.error) return fill(this.sessionsEl, h('div.list-error', {}, `Could not load sessions: ${presentation.error}`));
    const rows = s.sessionRows.map((row) => {
      const session = row.session;
      return h(`div.session${row.tabId !== null && row.tabId === s.activeTabId ? '.active' : ''}`, {
        'data-session-id': session.id, 'data-state': row.state, title: `${session.id} · ${session.cwd}`,
        onclick: () => this.workspace?.openSession(session.id),
      },
      h('div.session-head', {}, h('span.session-label', {}, row.name),
        h(`span.state.${row.state}`, {}, row.stateText)),
      h('div.session-command', {}, commandText(session.command)),
      h('div.session-foot', {}, row.tabId ? h('span.open-here', {}, 'open in this tab') : h('span.not-open', {}, 'not open here'),
        row.viewers ? h('span.viewers', {}, `${row.viewers} viewer${row.viewers > 1 ? 's' : ''}`) : null));
    });
    fill(this.sessionsEl, ...(rows.length ? rows : [h('div.list-empty', {}, 'No sessions yet.')]));
  }

  private renderTabs(s: WorkspaceSnapshot): void {
    fill(this.tabbarEl, ...s.tabs.map((tab) => h(`div.tab${tab.tabId === s.activeTabId ? '.active' : ''}`, {
      'data-tab-id': tab.tabId, 'data-session-id': tab.sessionId ?? '', 'data-phase': tab.phase, role: 'tab',
      onclick: () => this.workspace?.activate(tab.tabId),
      ondblclick: () => void this.rename(tab),
    },
    h(`span.dot.${tab.phase}`, {}),
    h('span.tab-name', {}, tab.name),
    tab.pendingKeys > 0 ? h('span.state.starting', { 'data-testid': 'pending-keys' }, `${tab.pendingKeys} key${tab.pendingKeys > 1 ? 's' : ''} pending`) : null,
    h('button.icon', { title: 'Rename', 'data-action': 'rename', onclick: (e: Event) => { e.stopPropagation(); void this.rename(tab); } }, '✎'),
    h('button.icon', { title: 'Close (ends the program)', 'data-action': 'close', onclick: (e: Event) => { e.stopPropagation(); void this.close(tab); } }, '×'))));
  }

  private renderTerminals(s: WorkspaceSnapshot): void {
    const linkDown = s.host.status !== 'online' || s.handshake !== 'ready';
    for (const tab of s.tabs) {
      const slot = this.slots.get(tab.tabId);
      if (!slot) continue;
      const active = tab.tabId === s.activeTabId;
      slot.host.classList.toggle('hidden', !active);
      this.renderOverlay(slot.overlay, tab, linkDown);
    }
    const active = s.tabs.find((t) => t.tabId === s.activeTabId);
    this.renderNotice(active);
    const showPlaceholder = s.tabs.length === 0 && s.sync.status === 'ready';
    this.placeholderEl.classList.toggle('hidden', !showPlaceholder);
    if (showPlaceholder) {
      fill(this.placeholderEl, h('p', {}, 'No terminal open in this tab.'),
        h('button.primary', { onclick: () => this.workspace?.newTerminal() }, 'Open a terminal'));
    }
    if (s.activeTabId !== this.shownTabId) {
      this.shownTabId = s.activeTabId;
      const slot = this.activeSlot();
      if (slot) {
        slot.xterm.fit();
        slot.xterm.focus();
      }
    }
  }

  private renderOverlay(overlay: HTMLElement, tab: TabView, linkDown: boolean): void {
    let kind = '';
    if (!tab.loadedOnce && tab.phase !== 'failed') kind = 'first-open';
    else if (tab.phase === 'reconnecting' || (linkDown && tab.phase === 'live')) kind = 'reconnecting';
    overlay.dataset.kind = kind;
    overlay.className = `overlay ${kind}`;
    if (kind === 'first-open') fill(overlay, h('div.spinner', { 'aria-label': 'opening' }));
    else if (kind === 'reconnecting') fill(overlay, h('div.reconnecting-label', {}, h('div.spinner.small'), 'reconnecting…'));
    else fill(overlay);
  }

  private renderNotice(tab: TabView | undefined): void {
    const parts: HTMLElement[] = [];
    if (tab?.notice) parts.push(h('div.notice', { 'data-testid': 'tab-notice' }, tab.notice));
    const offer = tab?.offer;
    if (tab && offer) {
      parts.push(h(`div.notice.${tab.phase === 'exited' ? 'exited' : 'failed'}`, { 'data-testid': tab.phase === 'exited' ? 'tab-exited' : 'tab-offer', 'data-offer': offer.kind },
        `${offer.message} `,
        h('button', { 'data-action': offer.action, onclick: () => (offer.action === 'retry' ? this.workspace?.retry(tab.tabId) : this.workspace?.restart(tab.tabId)) }, offer.button),
        h('button', { onclick: () => void this.close(tab) }, 'Close')));
    }
    fill(this.noticeEl, ...parts);
  }

  private renderToasts(s: WorkspaceSnapshot): void {
    const presentation = syncPresentation(s.sync);
    const toasts = [presentation.toast, s.error, ...s.toasts.map((t) => t.text)].filter((t): t is string => !!t);
    fill(this.toastsEl, ...toasts.map((text) => h('div.toast', { 'data-testid': 'toast' }, text)));
  }

  private async rename(tab: TabView): Promise<void> {
    const name = await askName(tab.name);
    if (name) this.workspace?.rename(tab.tabId, name);
  }

  private async close(tab: TabView): Promise<void> {
    if (await confirmClose(tab.name)) this.workspace?.close(tab.tabId);
  }
}
