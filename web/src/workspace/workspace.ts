// The workspace: this browser tab's terminal tabs and their daemon sessions. It listens to the
// HostRuntime, waits for `initial_state` on every (re)connect, lists sessions, runs the attach
// planner and carries out its steps, and turns user intents into commands. It starts a session
// only when a person asks (newTerminal, restart): never on a first open, a reload, a reconnect or
// a list change.
// The UI renders its snapshot and calls its intent methods; it holds no connection logic of its own.
import type { TimerHandle } from '../core/clock';
import { Listeners } from '../core/listeners';
import { DisposableStore, type Disposable } from '../core/disposable';
import { RequestError } from '../client/daemon-client';
import { StaleGenerationError, type HostRuntime, type HostSnapshot } from '../client/host-runtime';
import { encodeInput } from '../protocol/binary-frames';
import type { InitialState, ServerEvent, SessionInfo } from '../protocol/messages';
import { planAttach } from '../sessions/attach-planner';
import { sessionRows } from '../sessions/session-rows';
import { INITIAL_SYNC_STATE, syncTransition, type SyncEvent, type SyncState } from '../sessions/session-list-sync';
import { defaultLabel } from '../sessions/tab-name';
import {
  attachFailedOffer, closedElsewhereText, keysNotSentText, recoverableOffer, type KeysNotSentReason,
} from '../sessions/tab-messages';
import type { TabRecord } from '../sessions/tab-record';
import { TYPE_AHEAD_LIMIT } from '../sessions/type-ahead';
import { describeError } from './describe-error';
import { loadDefaultProgram, loadWorkspace, saveWorkspace } from './persistence';
import { carryOut, type StepHost } from './plan-steps';
import { SessionStarter } from './session-starter';
import { TabSession } from './tab-session';
import type { TerminalPort } from './terminal-port';
import { Toasts } from './toasts';

export type { DaemonInfo, Handshake, SpawnOptions, WorkspaceOptions, WorkspaceSnapshot } from './workspace-types';
import type { DaemonInfo, Handshake, SpawnOptions, WorkspaceOptions, WorkspaceSnapshot } from './workspace-types';

export class Workspace {
  private tabs: TabSession[] = [];
  private activeTabId: string | null = null;
  private handshake: Handshake = 'offline';
  private daemon: DaemonInfo | null = null;
  private sync: SyncState = INITIAL_SYNC_STATE;
  private warnings: string[] = [];
  private readonly toasts: Toasts;
  private readonly starter: SessionStarter;
  private readonly stepHost: StepHost = {
    tabById: (tabId) => this.tabById(tabId),
    isShown: (tab) => this.activeTabId === tab.record.tabId,
    attach: (tab, since) => this.attach(tab, since),
    start: (tab) => this.starter.start(tab),
    close: (tab, reason) => this.closeFromElsewhere(tab, reason),
  };
  private readonly freshPage: boolean;
  private plannedOnce = false;
  /** The connection whose first session list (a reply or a push, whichever comes first) is still to be planned. */
  private planDueFor: number | null = null;
  /** Sessions whose attach the daemon answered `session_not_found` on this connection. */
  private readonly refused = new Set<string>();
  private recoveringTimer: TimerHandle | null = null;
  private saveTimer: TimerHandle | null = null;
  /** Whether the page is hidden (document.hidden); every tab's stream is told, new ones too. */
  private pageHidden: boolean;
  private current: WorkspaceSnapshot;
  private readonly listeners = new Listeners<WorkspaceSnapshot>();
  /** Its host's runtime and the page's visibility, listened to until dispose(). */
  private readonly subscriptions = new DisposableStore();

  constructor(private readonly options: WorkspaceOptions) {
    this.toasts = new Toasts(options.clock, () => this.changed());
    this.starter = new SessionStarter({
      runtime: options.runtime, session: options.session, isOpen: (tab) => this.tabs.includes(tab),
      daemonInstanceId: () => this.daemon?.instanceId ?? null, changed: () => this.changed(),
      pageViewerSize: () => this.pageViewerSize(),
      started: (tab) => {
        // The daemon pushes the list with a new session before it answers the spawn.
        const listed = this.sync.sessions.find((s) => s.id === tab.sessionId);
        if (listed) tab.markListed(listed);
        tab.takeSizeOnAttach = true; // a person asked for this session here: it has this viewer's size
        this.attach(tab, undefined);
        this.changed();
      },
      orphaned: (sessionId) => this.ask({ type: 'remove_session', session_id: sessionId }),
    });
    this.pageHidden = options.visibility.isHidden();
    const saved = loadWorkspace(options.session);
    this.freshPage = saved === null;
    // A reload starts every tab's terminal empty: its attach gets the session's current screen
    // (a snapshot from the daemon's own model), never a copy the page kept of its own terminal.
    for (const record of saved?.tabs ?? []) this.addTab(record);
    this.activeTabId = saved?.activeTabId ?? null;
    this.current = this.buildSnapshot();
    this.subscriptions.add(options.runtime.subscribe((host) => this.onHost(host)));
    this.subscriptions.add(options.runtime.onEvent(({ generation, event }) => this.onEvent(generation, event)));
    this.subscriptions.add(options.runtime.onFrame(({ frame }) => this.tabFor(frame.sessionId)?.onFrame(frame)));
    this.subscriptions.add(options.visibility.subscribe((hidden) => this.onVisibility(hidden)));
  }

  get snapshot(): WorkspaceSnapshot {
    return this.current;
  }

  subscribe(listener: (snapshot: WorkspaceSnapshot) => void): Disposable {
    return this.listeners.subscribe(listener);
  }

  /**
   * The workspace goes (its host is removed, the page is torn down): it stops listening to the
   * host and the page, and its tabs' terminals and timers go. The sessions go on in the daemon.
   */
  dispose(): void {
    this.subscriptions.dispose();
    this.options.clock.clearTimeout(this.recoveringTimer);
    this.recoveringTimer = null;
    // The tabs stay listed (a pending save still writes them): only their terminals and timers go.
    for (const tab of this.tabs) tab.dispose();
    this.listeners.clear();
  }

  terminalOf(tabId: string): TerminalPort | null {
    return this.tabs.find((t) => t.record.tabId === tabId)?.terminal ?? null;
  }

  // ---- intents (each one a person's) ---------------------------------------------------------

  /** Opens a tab with a new session; while offline the start waits for the connection. */
  newTerminal(spawn: SpawnOptions = {}): string {
    const name = spawn.label || (spawn.command?.length ? defaultLabel(spawn.command) : loadDefaultProgram(this.options.session) ?? 'shell');
    const tab = this.addTab({
      tabId: this.options.newTabId(), name, serverSessionId: null, daemonInstanceId: null, renderedOffset: -1,
      command: spawn.command ?? null, cwd: spawn.cwd ?? null, start: null, listed: false, title: null, userNamed: !!spawn.label,
    });
    this.activeTabId = tab.record.tabId;
    this.requestStart(tab);
    return tab.record.tabId;
  }

  /** Opens a daemon session in a tab of this page (or shows the tab that has it). */
  openSession(sessionId: string): void {
    const existing = this.tabFor(sessionId);
    if (existing) return this.activate(existing.record.tabId);
    const session = this.sync.sessions.find((s) => s.id === sessionId);
    if (!session || !this.daemon) return;
    const tab = this.addTab({
      tabId: this.options.newTabId(), name: session.label, serverSessionId: session.id, daemonInstanceId: this.daemon.instanceId,
      renderedOffset: -1, command: session.command, cwd: session.cwd, start: null, listed: true, title: null, userNamed: false,
    });
    tab.markListed(session);
    this.activeTabId = tab.record.tabId;
    this.attach(tab, undefined);
    this.changed();
  }

  /** Shows a tab; a recoverable session waiting for a person is attached now (the daemon decides). */
  activate(tabId: string): void {
    const tab = this.tabById(tabId);
    if (!tab) return;
    this.activeTabId = tabId;
    if (tab.awaitingShow && this.handshake === 'ready') this.attach(tab, tab.resumeOffset());
    this.changed();
  }

  rename(tabId: string, label: string): void {
    const tab = this.tabById(tabId);
    if (!tab || !label.trim()) return;
    tab.rename(label.trim());
    if (tab.sessionId) this.ask({ type: 'rename_session', session_id: tab.sessionId, label: label.trim() });
  }

  /** Kills the tab's session, forgets it on the daemon, and closes the tab. */
  close(tabId: string): void {
    const tab = this.tabById(tabId);
    if (!tab) return;
    if (tab.sessionId) this.ask({ type: 'remove_session', session_id: tab.sessionId });
    this.dropTab(tab);
  }

  /**
   * Restart: continue / new on a recoverable session (a person's click): continue attaches, which
   * revives it (an agent continues its conversation); new asks the daemon for a fresh revive first.
   */
  revive(tabId: string, fresh: boolean): void {
    const tab = this.tabById(tabId);
    const sessionId = tab?.sessionId;
    if (!tab || !sessionId || this.handshake !== 'ready') return;
    tab.awaitingShow = false;
    this.refused.delete(sessionId);
    if (!fresh) return this.attach(tab, undefined);
    this.options.runtime.request({ type: 'revive_session', session_id: sessionId, fresh: true })
      .then(() => {
        if (tab.sessionId === sessionId && this.tabs.includes(tab)) this.attach(tab, undefined);
      })
      .catch((error: unknown) => {
        if (error instanceof StaleGenerationError || tab.sessionId !== sessionId) return;
        tab.showOffer(recoverableOffer(tab.view.session, describeError(error)));
      });
  }

  /**
   * Starts the tab's command again, in its directory, as a new session bound to the tab (Restart
   * after an exit, New for a session that no longer exists, Start again after a lost answer).
   */
  restart(tabId: string): void {
    const tab = this.tabById(tabId);
    if (!tab || tab.record.start === 'sent') return; // a start is already on its way
    const previous = tab.sessionId;
    if (previous && tab.stream.state.attachment !== 'none') this.options.runtime.send({ type: 'detach_session', session_id: previous });
    this.requestStart(tab);
  }

  /** Attaches the tab's session again after a refused attach (Try again); starts nothing. */
  retry(tabId: string): void {
    const tab = this.tabById(tabId);
    if (!tab || this.handshake !== 'ready') return;
    if (tab.sessionId) {
      this.refused.delete(tab.sessionId);
      this.attach(tab, tab.resumeOffset());
    } else {
      this.restart(tabId);
    }
  }

  input(tabId: string, data: string): void {
    this.tabById(tabId)?.type(data, this.handshake === 'ready');
  }

  /** The tab's terminal answered a query in its output on its own (see docs/protocol.md, "Terminal replies"). */
  reply(tabId: string, data: string): void {
    this.tabById(tabId)?.reply(data, this.handshake === 'ready');
  }

  /** The tab's viewer has a new size (what fits its element): see TabSession.viewerResized. */
  viewerResized(tabId: string): void {
    this.tabById(tabId)?.viewerResized(this.handshake === 'ready');
  }

  /** A person uses this tab's terminal (pressed on it, or asked for the size): the session takes its size. */
  takeSize(tabId: string): void {
    this.tabById(tabId)?.takeSize(this.handshake === 'ready');
  }

  /** Saves the tabs and the offsets they rendered (call on pagehide too). */
  persist(): void {
    saveWorkspace(this.options.session, { version: 1, tabs: this.tabs.map((t) => t.record), activeTabId: this.activeTabId });
  }

  // ---- connection and events ----------------------------------------------------------------

  /**
   * The page was hidden or shown. A hidden page's timers are throttled, so its tabs render and
   * acknowledge late: every tab flows live while hidden and goes back to lossless once visible.
   */
  private onVisibility(hidden: boolean): void {
    if (hidden === this.pageHidden) return;
    this.pageHidden = hidden;
    for (const tab of this.tabs) tab.setPageHidden(hidden);
  }

  private onHost(host: HostSnapshot): void {
    const online = host.status === 'online';
    if (online && this.handshake === 'offline') {
      this.handshake = 'waiting';
      this.options.clock.clearTimeout(this.recoveringTimer);
      this.recoveringTimer = this.options.clock.setTimeout(() => {
        if (this.handshake === 'waiting') this.setHandshake('recovering');
      }, this.options.recoveringAfterMs ?? 500);
    } else if (!online && this.handshake !== 'offline') {
      this.handshake = 'offline';
      for (const tab of this.tabs) tab.onLinkDown();
    }
    this.changed();
  }

  private onEvent(generation: number, event: ServerEvent): void {
    switch (event.type) {
      case 'initial_state':
        return this.onInitialState(generation, event);
      case 'attach_result':
        this.onSessions({ type: 'SEEN', session: event.session });
        return this.tabFor(event.session_id)?.onAttachResult(event);
      case 'pty_desync':
        return this.tabFor(event.session_id)?.onDesync();
      case 'input_waiting':
        return this.tabFor(event.session_id)?.onInputWaiting(event.keys);
      case 'input_undelivered':
        return this.tabFor(event.session_id)?.onInputUndelivered(event.keys);
      case 'session_resized':
        return this.tabFor(event.session_id)?.sizeFrom(event);
      case 'session_exited':
        return this.tabFor(event.session_id)?.onExited(event);
      case 'sessions_changed':
        return this.onSessions({ type: 'PUSHED', sessions: event.sessions });
      case 'session_state':
        return this.onSessions({ type: 'ACTIVITY', sessionId: event.session_id, activity: event.activity, waitingLine: event.waiting_line ?? null });
      case 'warning':
        this.addWarning(event.message);
        return this.changed();
      case 'command_error':
        if (event.code === 'daemon_recovering') this.setHandshake('recovering');
        // pty_flow has no reply: its refusal comes as an error naming the session.
        if (event.code === 'invalid_flow' && event.command === 'pty_flow' && event.session_id) this.tabFor(event.session_id)?.onFlowRejected();
        if (event.code === 'input_queue_full' && event.session_id) this.tabFor(event.session_id)?.onInputRefused();
        return;
      default:
        return;
    }
  }

  private addWarning(message: string): void {
    this.warnings = [...this.warnings.filter((w) => w !== message), message];
  }

  private onInitialState(generation: number, state: InitialState): void {
    this.options.clock.clearTimeout(this.recoveringTimer);
    this.daemon = { instanceId: state.daemon_instance_id, version: state.version, backend: state.backend, degraded: state.degraded ?? [] };
    // Start-up recovery warnings come with the state, so a client that connects later sees them too.
    (state.warnings ?? []).forEach((w) => this.addWarning(w.message));
    this.handshake = 'ready';
    this.refused.clear(); // a new connection asks the daemon afresh (it may revive what it refused)
    this.planDueFor = generation;
    this.changed();
    void this.refresh();
  }

  private async refresh(): Promise<void> {
    this.onSessions({ type: 'LOAD' });
    const loadId = this.sync.loadId;
    try {
      const reply = await this.options.runtime.request<{ type: 'session_list'; sessions: SessionInfo[] }>({ type: 'list_sessions' });
      this.onSessions({ type: 'LOADED', loadId, sessions: reply.sessions });
    } catch (error) {
      if (error instanceof StaleGenerationError) return;
      this.onSessions({ type: 'FAILED', loadId, error: describeError(error) });
    }
  }

  private executePlan(): void {
    const plan = planAttach({
      // A live terminal holds everything it received (some of it may still be parsing).
      tabs: this.tabs.map((t) => ({ ...t.record, renderedOffset: t.resumeOffset() ?? t.record.renderedOffset })),
      sessions: this.sync.sessions, daemonInstanceId: this.daemon!.instanceId, refused: this.refused,
      hasRenderedContent: (tabId) => this.tabById(tabId)?.hasContent ?? false,
      firstPlanOfFreshPage: this.freshPage && !this.plannedOnce && (this.options.openEverySessionOnFreshPage ?? true),
    });
    for (const step of plan.steps) carryOut(step, this.stepHost);
    for (const session of plan.open) this.openSession(session.id);
    this.plannedOnce = true;
    this.changed();
  }

  private onSessions(event: SyncEvent): void {
    const before = this.sync;
    this.sync = syncTransition(this.sync, event);
    const listed = (event.type === 'PUSHED' || event.type === 'LOADED') && this.sync !== before;
    if (listed) this.onList(event.type === 'PUSHED');
    // A connection plans on its first list, whether the reply or a push overtaking it brought it.
    if (listed && this.planDueFor !== null && this.options.runtime.isCurrent(this.planDueFor)) {
      this.planDueFor = null;
      this.executePlan();
    }
    this.changed();
  }

  /** A list arrived: tabs learn their sessions' labels and states; a pushed one may close tabs. */
  private onList(pushed: boolean): void {
    const byId = new Map(this.sync.sessions.map((s) => [s.id, s]));
    for (const tab of this.tabs) {
      const session = tab.sessionId ? byId.get(tab.sessionId) : undefined;
      if (!session || tab.record.daemonInstanceId !== this.daemon?.instanceId) continue;
      tab.markListed(session);
      if (pushed && session.state === 'exited' && tab.view.phase === 'live') tab.onExited(session);
    }
    // A session removed while this page is connected (another page, the CLI) closes its tab here;
    // one no list has shown yet is asked about by attaching again (session_not_found closes it).
    if (!pushed || !this.daemon || this.handshake !== 'ready') return;
    const plan = planAttach({
      tabs: this.tabs.map((t) => t.record), sessions: this.sync.sessions, daemonInstanceId: this.daemon.instanceId,
      refused: this.refused, hasRenderedContent: () => false,
    });
    for (const step of plan.steps) {
      const attaching = this.tabById(step.tabId)?.stream.state.attachment === 'attaching';
      if (step.kind === 'close' || (step.kind === 'confirm' && !attaching)) carryOut(step, this.stepHost);
    }
  }

  private attach(tab: TabSession, since: number | undefined): void {
    const sessionId = tab.sessionId;
    if (!sessionId) return;
    const flow = tab.attaching(since);
    // This viewer's size, when it was ever shown: the daemon remembers it (opening never resizes).
    const size = tab.terminal.viewerSize() ?? {};
    this.options.runtime.request({ type: 'attach_session', session_id: sessionId, ...(since === undefined ? {} : { since }), ...size, ...flow })
      .catch((error: unknown) => {
        if (tab.sessionId !== sessionId || !this.tabs.includes(tab)) return;
        const failure = error instanceof RequestError ? error.failure : null;
        if (failure?.kind === 'timeout') return tab.showOffer(attachFailedOffer('the daemon did not answer'));
        // Lost with the connection, or the daemon is recovering: the next connection's plan attaches again.
        if (failure?.kind !== 'command_error' || failure.error.code === 'daemon_recovering') return;
        if (failure.error.code === 'session_not_found') {
          // Removed meanwhile, or listed but not attachable (recoverable): the planner decides.
          this.refused.add(sessionId);
          const [step] = planAttach({
            tabs: [tab.record], sessions: this.sync.sessions, daemonInstanceId: this.daemon!.instanceId, refused: this.refused,
            hasRenderedContent: () => tab.hasContent,
          }).steps;
          if (step) carryOut(step, this.stepHost);
        } else if (failure.error.code === 'agent_conversation_missing' || failure.error.code === 'session_not_recoverable') {
          // Ask, never start fresh on our own: the person chooses Restart: new (or closes the tab).
          tab.showOffer(recoverableOffer(tab.view.session, failure.error.message));
        } else {
          tab.showOffer(attachFailedOffer(failure.error.message));
        }
      });
  }

  /** What a terminal of this page measured, the active tab's first. */
  private pageViewerSize(): { cols: number; rows: number } | null {
    const active = this.activeTabId ? this.tabById(this.activeTabId)?.terminal.viewerSize() : null;
    return active ?? this.tabs.map((t) => t.terminal.viewerSize()).find((size) => size != null) ?? null;
  }

  /** A person asked for a session in this tab: sent now when connected, else on the next connection. */
  private requestStart(tab: TabSession): void {
    const ready = this.handshake === 'ready';
    tab.requestStart(ready ? null : 'Starts as soon as the daemon is reachable.');
    this.changed();
    if (ready) this.starter.start(tab);
  }

  /** The tab's session was removed elsewhere (or another tab shows it): the tab closes and says so. */
  private closeFromElsewhere(tab: TabSession, reason: 'removed' | 'duplicate'): void {
    const keys = tab.typeAhead.clear();
    this.dropTab(tab);
    this.toasts.show(closedElsewhereText(tab.view.name, reason, keys));
  }

  private ask(command: Parameters<HostRuntime['request']>[0]): void {
    this.options.runtime.request(command).catch((error: unknown) => {
      if (error instanceof StaleGenerationError) return;
      this.toasts.show(`${command.type.replace('_', ' ')} failed: ${describeError(error)}`);
    });
  }

  // ---- tabs and snapshots -------------------------------------------------------------------

  private addTab(record: TabRecord): TabSession {
    const tab = new TabSession(record, this.options.createTerminal(record.tabId), {
      attach: (t, since) => this.attach(t, since),
      detach: (t) => t.sessionId && this.options.runtime.send({ type: 'detach_session', session_id: t.sessionId }),
      send: (command) => this.options.runtime.send(command),
      sendInput: (sessionId, data, reply) => this.options.runtime.sendBinary(encodeInput(sessionId, data, reply)),
      changed: () => this.changed(),
      keysNotSent: (t, keys, reason: KeysNotSentReason) => this.toasts.show(keysNotSentText(t.view.name, keys, reason, TYPE_AHEAD_LIMIT)),
    }, this.options.clock, this.options.flowLimits);
    tab.setPageHidden(this.pageHidden);
    this.tabs.push(tab);
    return tab;
  }

  private dropTab(tab: TabSession): void {
    const tabId = tab.record.tabId;
    this.tabs = this.tabs.filter((t) => t !== tab);
    tab.dispose();
    if (this.activeTabId === tabId) this.activeTabId = this.tabs[0]?.record.tabId ?? null;
    this.changed();
  }

  private tabById(tabId: string): TabSession | undefined {
    return this.tabs.find((t) => t.record.tabId === tabId);
  }

  private tabFor(sessionId: string): TabSession | undefined {
    return this.tabs.find((t) => t.sessionId === sessionId);
  }

  private setHandshake(handshake: Handshake): void {
    if (this.handshake === 'ready' && handshake === 'recovering') return;
    this.handshake = handshake;
    this.changed();
  }

  private changed(): void {
    this.current = this.buildSnapshot();
    this.listeners.emit(this.current);
    this.options.clock.clearTimeout(this.saveTimer);
    this.saveTimer = this.options.clock.setTimeout(() => this.persist(), 250);
  }

  private buildSnapshot(): WorkspaceSnapshot {
    const held = new Set(this.tabs.map((t) => t.sessionId));
    const tabs = this.tabs.map((t) => t.view);
    const link = this.handshake === 'ready' ? 'connected' : this.handshake === 'offline' ? 'offline' : 'reconnecting';
    return {
      host: this.options.runtime.snapshot, handshake: this.handshake, daemon: this.daemon, sync: this.sync,
      tabs, activeTabId: this.activeTabId, sessionRows: sessionRows(this.sync.sessions, tabs, link),
      unclaimed: this.sync.sessions.filter((s) => !held.has(s.id)), warnings: this.warnings,
      toasts: this.toasts.list,
    };
  }
}
