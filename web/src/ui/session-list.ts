// The sidebar's session list, every host's: first the sessions that need a person (from every
// host, pending approval then waiting for input: attention-view.ts), then each host's other
// sessions under its name. One button per session with its full name (it wraps, never cut), what
// it does in words, and the line it waits on (else its command). One Tab stop for the whole list
// (roving tabindex): ↑/↓ and Home/End move the focus; Enter or Space opens the session in a tab
// of this page (or shows the tab that has it) and puts the focus in its terminal.
import { syncPresentation } from '../sessions/session-list-sync';
import { attentionView, type HostGroup, type HostedRow } from '../workspace/attention-view';
import type { CockpitSnapshot, HostView } from '../workspace/cockpit';
import { fill, h } from './dom';
import { rovingTarget } from './keymap';
import { commandText } from './status-text';

const rowKey = (row: { hostKey: string; session: { id: string } }) => `${row.hostKey}/${row.session.id}`;

export class SessionList {
  readonly element = h('div.session-list', { 'data-testid': 'session-list' });
  private keys: string[] = [];
  private rovingKey: string | null = null;
  private signature = '';

  /** A pointer is down on the list: renders wait for it (see `render`). */
  private pressed = false;
  private held: [CockpitSnapshot, boolean] | null = null;

  /** Listens to the window until `signal` aborts (its owner's lifetime). */
  constructor(private readonly open: (hostKey: string, sessionId: string) => void, signal: AbortSignal) {
    this.element.onkeydown = (event) => this.onKey(event);
    this.element.onpointerdown = () => { this.pressed = true; };
    const released = () => {
      if (!this.pressed) return;
      this.pressed = false;
      // After the click this release makes, which goes to the rows the person pressed.
      setTimeout(() => {
        const held = this.held;
        if (!held || this.pressed) return; // a new press keeps holding it
        this.held = null;
        this.render(...held);
      }, 0);
    };
    window.addEventListener('pointerup', released, { signal });
    window.addEventListener('pointercancel', released, { signal });
  }

  /**
   * `refused`: the page's own daemon refused the token, so there is nothing to load (the page
   * stopped). While a pointer is down on the list the rows stay as they are, and the newest state
   * is drawn once it is released: rows drawn anew between a press and its release would swallow
   * the click (the press and the release would land on different buttons), and in a busy cockpit
   * activity redraws the list many times a second.
   */
  render(s: CockpitSnapshot, refused: boolean): void {
    if (this.pressed) {
      this.held = [s, refused];
      return;
    }
    const primary = s.hosts[0]!;
    const presentation = syncPresentation(primary.snapshot.sync);
    const loading = presentation.blockingSpinner || (primary.snapshot.sync.status === 'idle' && !primary.snapshot.sync.everLoaded);
    const view = attentionView(s);
    const hostStates = s.hosts.map((host) => [host.key, hostState(host)]);
    const signature = JSON.stringify([refused, loading, presentation.error, s.activeTabId, view, hostStates]);
    if (signature === this.signature) return;
    this.signature = signature;
    if (refused) {
      this.keys = [];
      return fill(this.element, h('div.list-error', {}, 'Not connected: the daemon refused the token.'));
    }
    if (loading && s.hosts.length === 1) {
      this.keys = [];
      return fill(this.element, h('div.list-loading', {}, h('div.spinner', { role: 'status', 'aria-label': 'Loading sessions' })));
    }
    const ordered = [...view.needsYou, ...view.groups.flatMap((g) => g.rows)];
    this.keys = ordered.map(rowKey);
    if (!this.rovingKey || !this.keys.includes(this.rovingKey)) {
      const shown = s.tabs.find((t) => t.tabId === s.activeTabId);
      const shownKey = shown?.sessionId ? `${shown.hostKey}/${shown.sessionId}` : null;
      this.rovingKey = shownKey && this.keys.includes(shownKey) ? shownKey : this.keys[0] ?? null;
    }
    const focused = this.focusedKey();
    const multiHost = s.hosts.length > 1;
    const sections: HTMLElement[] = [];
    if (view.needsYou.length) {
      sections.push(this.section('needs-you', `Needs you · ${view.count}`, null, view.needsYou, s, multiHost));
    }
    for (const group of view.groups) {
      const host = s.hosts.find((x) => x.key === group.key)!;
      const title = multiHost ? group.name : view.needsYou.length ? 'Other sessions' : null;
      const error = host.key === primary.key ? presentation.error : syncPresentation(host.snapshot.sync).error;
      sections.push(this.section(`host-${group.key}`, title, multiHost ? hostState(host) : null, group.rows, s, false, group, error,
        host.key === primary.key && loading));
    }
    fill(this.element, ...sections);
    if (focused) this.button(focused)?.focus();
  }

  /** Focuses the row of `sessionId` on `hostKey` when listed, else the list's Tab stop; false when there is none. */
  focus(hostKey: string | null = null, sessionId: string | null = null): boolean {
    const key = hostKey && sessionId ? `${hostKey}/${sessionId}` : null;
    if (key && this.keys.includes(key)) this.moveTo(key);
    const target = this.rovingKey ? this.button(this.rovingKey) : null;
    target?.focus();
    return target !== null;
  }

  private section(id: string, title: string | null, state: string | null, rows: HostedRow[], s: CockpitSnapshot, showHost: boolean,
    group?: HostGroup, error?: string | null, loading = false): HTMLElement {
    const headingId = `sessions-${id.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
    const heading = title ? h('h3.session-group-title', { id: headingId }, title, state ? h('span.host-state', {}, ` · ${state}`) : null) : null;
    let body: HTMLElement;
    if (loading) body = h('div.list-loading', {}, h('div.spinner', { role: 'status', 'aria-label': 'Loading sessions' }));
    else if (error) body = h('div.list-error', {}, `Could not load sessions: ${error}`);
    else if (rows.length === 0) body = h('div.list-empty', {}, emptyText(s, group));
    else {
      body = h('ul.sessions', title ? { 'aria-labelledby': headingId } : { 'aria-label': 'Sessions' },
        ...rows.map((row) => this.row(row, s, showHost)));
    }
    return h('section.session-group', { 'data-group': id }, heading, body);
  }

  private row(row: HostedRow, s: CockpitSnapshot, showHost: boolean): HTMLElement {
    const session = row.session;
    const key = rowKey(row);
    const shown = row.tabId !== null && row.tabId === s.activeTabId;
    const line = row.waitingLine ?? commandText(session.command);
    return h('li', {}, h(`button.session${shown ? '.active' : ''}`, {
      type: 'button', 'data-session-id': session.id, 'data-host': row.hostKey, 'data-state': row.state, 'data-activity': row.activity ?? '',
      title: `${session.id} · ${session.cwd}`, tabindex: key === this.rovingKey ? '0' : '-1', 'aria-current': shown ? 'true' : undefined,
      onclick: () => this.open(row.hostKey, session.id),
    },
    h('span.session-label', { 'data-testid': 'session-name' }, row.name),
    h('span.session-badges', {},
      h('span.visually-hidden', {}, ', '),
      row.activity ? h(`span.activity.${row.activity}`, { 'data-testid': 'activity-badge', 'data-activity': row.activity }, row.activityText) : null,
      row.activity ? h('span.visually-hidden', {}, ', ') : null,
      h(`span.state.${row.state}`, session.state === 'recoverable'
        ? { 'data-testid': 'recoverable-badge', title: session.reason ?? 'its program was lost; opening it starts it again' } : {},
      row.stateText),
      showHost ? h('span.host-name', {}, h('span.visually-hidden', {}, ', on '), row.hostName) : null),
    h(`span.session-line${row.waitingLine ? '.waiting-line' : ''}`, row.waitingLine ? { 'data-testid': 'waiting-line' } : {},
      h('span.visually-hidden', {}, ', '), line),
    h('span.session-foot', {}, row.tabId ? h('span.open-here', {}, 'open in this tab') : h('span.not-open', {}, 'not open here'),
      row.viewers ? h('span.viewers', {}, `${row.viewers} viewer${row.viewers > 1 ? 's' : ''}`) : null)));
  }

  private focusedKey(): string | null {
    const focused = document.activeElement;
    if (!focused || !this.element.contains(focused)) return null;
    const button = focused.closest<HTMLElement>('[data-session-id]');
    return button ? `${button.dataset.host}/${button.dataset.sessionId}` : null;
  }

  private onKey(event: KeyboardEvent): void {
    const key = this.focusedKey();
    if (!key || event.ctrlKey || event.altKey || event.metaKey || event.shiftKey) return;
    const target = rovingTarget(event.key, this.keys.indexOf(key), this.keys.length, 'vertical');
    if (target === null) return;
    event.preventDefault();
    this.moveTo(this.keys[target]!);
    this.button(this.rovingKey!)?.focus();
  }

  private moveTo(key: string): void {
    this.rovingKey = key;
    for (const button of this.element.querySelectorAll<HTMLElement>('button.session')) {
      button.tabIndex = `${button.dataset.host}/${button.dataset.sessionId}` === key ? 0 : -1;
    }
  }

  private button(key: string): HTMLElement | null {
    const [host, id] = [key.slice(0, key.lastIndexOf('/')), key.slice(key.lastIndexOf('/') + 1)];
    return this.element.querySelector<HTMLElement>(`button.session[data-host="${CSS.escape(host)}"][data-session-id="${CSS.escape(id)}"]`);
  }
}

/** What an empty group says: not reached yet, nothing running, or everything it has is above (it needs you). */
function emptyText(s: CockpitSnapshot, group: HostGroup | undefined): string {
  const host = group ? s.hosts.find((x) => x.key === group.key) : undefined;
  if (host && host.snapshot.handshake !== 'ready' && !host.snapshot.sync.everLoaded) return 'Not reached yet.';
  return host && host.snapshot.sessionRows.length > 0 ? 'Its other sessions are above: they need you.' : 'No sessions yet.';
}

/** A host's connection in words, for its group's heading. */
function hostState(host: HostView): string {
  const s = host.snapshot;
  if (s.handshake === 'ready') return host.kind === 'relay' ? 'connected through relay' : 'connected';
  if (s.host.connection?.reason?.kind === 'rejected') return 'refused this page';
  if (s.host.status === 'online') return 'connecting…';
  return s.host.everOnline ? 'offline, retrying' : host.kind === 'relay' ? 'relay or host unreachable, retrying' : 'unreachable, retrying';
}
