// The sidebar's session list: every daemon session, one button each (the workspace's session rows:
// a tab's name, "offline" while not connected, live viewer counts), with one Tab stop for the
// list (roving tabindex). ↑/↓ and Home/End move the focus; Enter or Space opens the session in a
// tab of this page (or shows the tab that has it) and puts the focus in its terminal.
import { syncPresentation } from '../sessions/session-list-sync';
import type { WorkspaceSnapshot } from '../workspace/workspace';
import { fill, h } from './dom';
import { rovingTarget } from './keymap';
import { commandText } from './status-text';

export class SessionList {
  readonly element = h('div.session-list', { 'data-testid': 'session-list' });
  private ids: string[] = [];
  private rovingId: string | null = null;
  private signature = '';

  constructor(private readonly open: (sessionId: string) => void) {
    this.element.addEventListener('keydown', (event) => this.onKey(event));
  }

  /** `refused`: the daemon refused the token, so there is nothing to load (the page stopped). */
  render(s: WorkspaceSnapshot, refused: boolean): void {
    const presentation = syncPresentation(s.sync);
    const loading = presentation.blockingSpinner || (s.sync.status === 'idle' && !s.sync.everLoaded);
    const signature = JSON.stringify([refused, loading, presentation.error, s.activeTabId, s.sessionRows]);
    if (signature === this.signature) return;
    this.signature = signature;
    if (refused) {
      this.ids = [];
      return fill(this.element, h('div.list-error', {}, 'Not connected: the daemon refused the token.'));
    }
    if (loading) {
      this.ids = [];
      return fill(this.element, h('div.list-loading', {}, h('div.spinner', { role: 'status', 'aria-label': 'Loading sessions' })));
    }
    if (presentation.error) {
      this.ids = [];
      return fill(this.element, h('div.list-error', {}, `Could not load sessions: ${presentation.error}`));
    }
    this.ids = s.sessionRows.map((row) => row.session.id);
    if (!this.rovingId || !this.ids.includes(this.rovingId)) {
      const shownHere = s.tabs.find((t) => t.tabId === s.activeTabId)?.sessionId;
      this.rovingId = shownHere && this.ids.includes(shownHere) ? shownHere : this.ids[0] ?? null;
    }
    const focused = this.focusedId();
    const rows = s.sessionRows.map((row) => {
      const session = row.session;
      const shown = row.tabId !== null && row.tabId === s.activeTabId;
      return h('li', {}, h(`button.session${shown ? '.active' : ''}`, {
        type: 'button', 'data-session-id': session.id, 'data-state': row.state, title: `${session.id} · ${session.cwd}`,
        tabindex: session.id === this.rovingId ? '0' : '-1', 'aria-current': shown ? 'true' : undefined,
        onclick: () => this.open(session.id),
      },
      h('span.session-head', {}, h('span.session-label', {}, row.name),
        row.activity ? h(`span.activity.${row.activity}`, { 'data-testid': 'activity-badge', 'data-activity': row.activity }, row.activityText) : null,
        h(`span.state.${row.state}`, session.state === 'recoverable'
          ? { 'data-testid': 'recoverable-badge', title: session.reason ?? 'its program was lost; opening it starts it again' } : {},
        row.stateText)),
      h('span.session-command', {}, commandText(session.command)),
      h('span.session-foot', {}, row.tabId ? h('span.open-here', {}, 'open in this tab') : h('span.not-open', {}, 'not open here'),
        row.viewers ? h('span.viewers', {}, `${row.viewers} viewer${row.viewers > 1 ? 's' : ''}`) : null)));
    });
    fill(this.element, rows.length ? h('ul.sessions', { 'aria-label': 'Sessions' }, ...rows) : h('div.list-empty', {}, 'No sessions yet.'));
    if (focused) this.button(focused)?.focus();
  }

  /** Focuses `sessionId` (the one on show) when listed, else the list's Tab stop; false when there is none. */
  focus(sessionId: string | null = null): boolean {
    if (sessionId && this.ids.includes(sessionId)) this.moveTo(sessionId);
    const target = this.rovingId ? this.button(this.rovingId) : null;
    target?.focus();
    return target !== null;
  }

  private focusedId(): string | null {
    const focused = document.activeElement;
    if (!focused || !this.element.contains(focused)) return null;
    return focused.closest<HTMLElement>('[data-session-id]')?.dataset.sessionId ?? null;
  }

  private onKey(event: KeyboardEvent): void {
    const id = this.focusedId();
    if (!id || event.ctrlKey || event.altKey || event.metaKey || event.shiftKey) return;
    const target = rovingTarget(event.key, this.ids.indexOf(id), this.ids.length, 'vertical');
    if (target === null) return;
    event.preventDefault();
    this.moveTo(this.ids[target]!);
    this.button(this.rovingId!)?.focus();
  }

  private moveTo(sessionId: string): void {
    this.rovingId = sessionId;
    for (const button of this.element.querySelectorAll<HTMLElement>('button.session')) {
      button.tabIndex = button.dataset.sessionId === sessionId ? 0 : -1;
    }
  }

  private button(sessionId: string): HTMLElement | null {
    return this.element.querySelector<HTMLElement>(`button.session[data-session-id="${sessionId}"]`);
  }
}
