// The workspace: this browser tab's terminal tabs and their daemon sessions. It listens to the
// HostRuntime, waits for `initial_state` on every (re)connect, lists sessions, runs the attach
// planner, reattaches / respawns, and turns user intents into commands. The UI renders its
// snapshot and calls its intent methods; it holds no connection logic of its own.
import type { TimerHandle } from '../core/clock';
import { Listeners } from '../core/listeners';
import { RequestError } from '../client/daemon-client';
import { StaleGenerationError, type HostRuntime, type HostSnapshot } from '../client/host-runtime';
import type { AttachResult, InitialState, ServerEvent, SessionInfo } from '../protocol/messages';
import { planAttach, respawnNotice } from '../sessions/attach-planner';
import { INITIAL_SYNC_STATE, syncTransition, type SyncEvent, type SyncState } from '../sessions/session-list-sync';
import type { TabRecord } from '../sessions/tab-record';
import { forgetScreen, loadScreen, loadWorkspace, saveScreen, saveWorkspace } from './persistence';
import { TabSession } from './tab-session';
import type { TerminalPort } from './terminal-port';

export type { DaemonInfo, Handshake, SpawnOptions, WorkspaceOptions, WorkspaceSnapshot } from './workspace-types';
import type { DaemonInfo, Handshake, SpawnOptions, WorkspaceOptions, WorkspaceSnapshot } from './workspace-types';

export class Workspace {
  private tabs: TabSession[] = [];
  private activeTabId: string | null = null;
  private handshake: Handshake = 'offline';
  private daemon: DaemonInfo | null = null;
  private sync: SyncState = INITIAL_SYNC_STATE;
  private warnings: string[] = [];
  private error: string | null = null;
  private readonly freshPage: boolean;
  private plannedOnce = false;
  private recoveringTimer: TimerHandle | null = null;
  private saveTimer: TimerHandle | null = null;
  /** Whether the page is hidden (document.hidden); every tab's stream is told, new ones too. */
  private pageHidden: boolean;
  private current: WorkspaceSnapshot;
  private readonly listeners = new Listeners<WorkspaceSnapshot>();

  constructor(private readonly options: WorkspaceOptions) {
    this.pageHidden = options.visibility.isHidden();
    const saved = loadWorkspace(options.session);
    this.freshPage = saved === null;
    for (const record of saved?.tabs ?? []) {
      const tab = this.addTab(record);
      const screen = loadScreen(options.session, record.tabId);
      if (screen && screen.offset === record.renderedOffset && screen.daemonInstanceId === record.daemonInstanceId && screen.offset >= 0) {
        tab.restore(screen.data, screen.offset);
      }
    }
    this.activeTabId = saved?.activeTabId ?? null;
    this.current = this.buildSnapshot();
    options.runtime.subscribe((host) => this.onHost(host));
    options.runtime.onEvent(({ generation, event }) => this.onEvent(generation, event));
    options.runtime.onFrame(({ frame }) => this.tabFor(frame.sessionId)?.onFrame(frame));
    options.visibility.subscribe((hidden) => this.onVisibility(hidden));
  }

  get snapshot(): WorkspaceSnapshot {
    return this.current;
  }

  subscribe(listener: (snapshot: WorkspaceSnapshot) => void): () => void {
    return this.listeners.subscribe(listener);
  }

  terminalOf(tabId: string): TerminalPort | null {
    return this.tabs.find((t) => t.record.tabId === tabId)?.terminal ?? null;
  }

  // ---- intents -------------------------------------------------------------------------------

  newTerminal(spawn: SpawnOptions = {}): string {
    const name = spawn.label || (spawn.command?.[0] ? basename(spawn.command[0]) : 'shell');
    const tab = this.addTab({
      tabId: this.options.newTabId(), name, serverSessionId: null, daemonInstanceId: null, renderedOffset: -1,
      command: spawn.command ?? null, cwd: spawn.cwd ?? null,
    });
    this.activeTabId = tab.record.tabId;
    this.changed();
    if (this.handshake === 'ready') this.spawn(tab, spawn.label, null);
    return tab.record.tabId;
  }

  /** Opens a daemon session in a tab of this page (or shows the tab that has it). */
  openSession(sessionId: string): void {
    const existing = this.tabFor(sessionId);
    if (existing) return this.activate(existing.record.tabId);
    const session = this.sync.sessions.find((s) => s.id === sessionId);
    if (!session || !this.daemon) return;
    const tab = this.addTab({
      tabId: this.options.newTabId(), name: session.label, serverSessionId: session.id,
      daemonInstanceId: this.daemon.instanceId, renderedOffset: -1, command: session.command, cwd: session.cwd,
    });
    tab.update({ session });
    this.activeTabId = tab.record.tabId;
    this.attach(tab, undefined);
    this.changed();
  }

  activate(tabId: string): void {
    if (this.tabs.some((t) => t.record.tabId === tabId)) {
      this.activeTabId = tabId;
      this.changed();
    }
  }

  rename(tabId: string, label: string): void {
    const tab = this.tabById(tabId);
    if (!tab || !label.trim()) return;
    tab.record = { ...tab.record, name: label.trim() };
    tab.update({ name: label.trim() });
    if (tab.sessionId) this.ask({ type: 'rename_session', session_id: tab.sessionId, label: label.trim() });
  }

  /** Kills the tab's session, forgets it on the daemon, and closes the tab. */
  close(tabId: string): void {
    const tab = this.tabById(tabId);
    if (!tab) return;
    if (tab.sessionId) this.ask({ type: 'remove_session', session_id: tab.sessionId });
    this.tabs = this.tabs.filter((t) => t !== tab);
    tab.dispose();
    forgetScreen(this.options.session, tabId);
    if (this.activeTabId === tabId) this.activeTabId = this.tabs[0]?.record.tabId ?? null;
    this.changed();
  }

  /** Starts the tab's program again after it exited (same command and cwd). */
  restart(tabId: string): void {
    const tab = this.tabById(tabId);
    if (tab && this.handshake === 'ready') this.spawn(tab, tab.view.name, null);
  }

  input(tabId: string, data: string): void {
    const tab = this.tabById(tabId);
    if (tab?.sessionId && tab.view.phase === 'live' && !tab.view.readOnly) {
      this.options.runtime.send({ type: 'pty_input', session_id: tab.sessionId, data });
    }
  }

  resize(tabId: string, cols: number, rows: number): void {
    const tab = this.tabById(tabId);
    if (tab?.sessionId && tab.view.phase === 'live' && !tab.view.readOnly) {
      this.options.runtime.send({ type: 'pty_resize', session_id: tab.sessionId, cols, rows });
    }
  }

  /** Saves tabs and, with `screens`, every tab's screen (call on pagehide). */
  persist(screens = false): void {
    if (screens) {
      for (const tab of this.tabs) {
        if (!tab.hasContent || tab.stream.rendered < 0) continue;
        tab.record = { ...tab.record, renderedOffset: tab.stream.rendered };
        const ok = saveScreen(this.options.session, tab.record.tabId, {
          offset: tab.stream.rendered, daemonInstanceId: tab.record.daemonInstanceId, data: tab.terminal.serialize(),
        });
        if (!ok) forgetScreen(this.options.session, tab.record.tabId);
      }
    }
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
        return this.onAttachResult(event);
      case 'pty_desync':
        return this.tabFor(event.session_id)?.onDesync();
      case 'session_exited':
        return this.tabFor(event.session_id)?.onExited();
      case 'sessions_changed':
        return this.onSessions({ type: 'PUSHED', sessions: event.sessions });
      case 'warning':
        this.addWarning(event.message);
        return this.changed();
      case 'command_error':
        if (event.code === 'daemon_recovering') this.setHandshake('recovering');
        // pty_flow has no reply: its refusal comes as an error naming the session.
        if (event.code === 'invalid_flow' && event.command === 'pty_flow' && event.session_id) this.tabFor(event.session_id)?.onFlowRejected();
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
    this.changed();
    void this.refresh(generation);
  }

  private async refresh(generation: number): Promise<void> {
    this.onSessions({ type: 'LOAD' });
    const loadId = this.sync.loadId;
    try {
      const reply = await this.options.runtime.request<{ type: 'session_list'; sessions: SessionInfo[] }>({ type: 'list_sessions' });
      this.onSessions({ type: 'LOADED', loadId, sessions: reply.sessions });
    } catch (error) {
      if (error instanceof StaleGenerationError) return;
      this.onSessions({ type: 'FAILED', loadId, error: describe(error) });
      return;
    }
    if (this.options.runtime.isCurrent(generation) && this.sync.loadId === loadId) this.executePlan();
  }

  private executePlan(): void {
    const daemon = this.daemon!;
    const plan = planAttach({
      // A live terminal holds everything it received (some of it may still be parsing).
      tabs: this.tabs.map((t) => ({ ...t.record, renderedOffset: t.resumeOffset() ?? t.record.renderedOffset })),
      sessions: this.sync.sessions, daemonInstanceId: daemon.instanceId,
      hasRenderedContent: (tabId) => this.tabById(tabId)?.hasContent ?? false,
    });
    for (const step of plan.reattach) {
      const tab = this.tabById(step.tabId)!;
      tab.update({ session: step.session });
      this.attach(tab, step.since);
    }
    for (const step of plan.respawn) {
      const tab = this.tabById(step.tabId)!;
      this.spawn(tab, step.reason === 'never_started' && !tab.record.command ? undefined : tab.record.name, respawnNotice(step));
    }
    if (!this.plannedOnce && this.freshPage) {
      const running = plan.unclaimed.filter((s) => s.state !== 'exited');
      for (const session of running) this.openSession(session.id);
      if (running.length === 0 && this.tabs.length === 0) this.newTerminal();
      if (running.length > 0) this.activeTabId = this.tabs[this.tabs.length - 1]?.record.tabId ?? null;
    }
    this.plannedOnce = true;
    this.changed();
  }

  private onSessions(event: SyncEvent): void {
    this.sync = syncTransition(this.sync, event);
    if (event.type === 'PUSHED') {
      const byId = new Map(event.sessions.map((s) => [s.id, s]));
      for (const tab of this.tabs) {
        const session = tab.sessionId ? byId.get(tab.sessionId) : undefined;
        if (!session) continue;
        if (session.label !== tab.view.name) tab.record = { ...tab.record, name: session.label };
        tab.update({ session, name: session.label, ...(session.state === 'exited' ? { phase: 'exited' as const } : {}) });
      }
    }
    this.changed();
  }

  private onAttachResult(result: AttachResult): void {
    this.tabFor(result.session_id)?.onAttachResult(result);
  }

  private attach(tab: TabSession, since: number | undefined): void {
    const sessionId = tab.sessionId;
    if (!sessionId) return;
    const flow = tab.attaching(since);
    const { cols, rows } = tab.terminal.size();
    this.options.runtime.request({ type: 'attach_session', session_id: sessionId, ...(since === undefined ? {} : { since }), cols, rows, ...flow })
      .catch((error: unknown) => {
        if (tab.sessionId !== sessionId || !this.tabs.includes(tab)) return;
        const failure = error instanceof RequestError ? error.failure : null;
        if (failure?.kind === 'command_error' && failure.error.code === 'session_not_found') {
          this.spawn(tab, undefined, 'The previous session is gone (the daemon no longer has it); this is a new one.');
        } else if (failure?.kind === 'command_error' && !failure.error.retryable) {
          tab.update({ phase: 'failed', notice: `Could not attach: ${failure.error.message}` });
        }
      });
  }

  private spawn(tab: TabSession, label: string | undefined, notice: string | null): void {
    const { cols, rows } = tab.terminal.size();
    const { command, cwd } = tab.record;
    tab.update({ phase: tab.view.loadedOnce ? 'reconnecting' : 'opening', notice });
    this.options.runtime.request<{ type: 'spawn_result'; session: SessionInfo }>({
      type: 'spawn_session', cols, rows, ...(command ? { command } : {}), ...(cwd ? { cwd } : {}), ...(label ? { label } : {}),
    }).then((reply) => {
      if (!this.tabs.includes(tab) || !this.daemon) return;
      tab.bindSession(reply.session, this.daemon.instanceId);
      this.attach(tab, undefined);
      this.changed();
    }, (error: unknown) => {
      if (error instanceof StaleGenerationError || !this.tabs.includes(tab)) return;
      if (error instanceof RequestError && error.failure.kind === 'disconnected') return;
      tab.update({ phase: 'failed', notice: `Could not start the program: ${describe(error)}` });
    });
  }

  private ask(command: Parameters<HostRuntime['request']>[0]): void {
    this.options.runtime.request(command).catch((error: unknown) => {
      if (error instanceof StaleGenerationError) return;
      this.error = `${command.type.replace('_', ' ')} failed: ${describe(error)}`;
      this.changed();
    });
  }

  // ---- tabs and snapshots -------------------------------------------------------------------

  private addTab(record: TabRecord): TabSession {
    const tab = new TabSession(record, this.options.createTerminal(record.tabId), {
      attach: (t, since) => this.attach(t, since),
      detach: (t) => t.sessionId && this.options.runtime.send({ type: 'detach_session', session_id: t.sessionId }),
      send: (command) => this.options.runtime.send(command),
      changed: () => this.changed(),
    }, this.options.clock, this.options.flowLimits);
    tab.setPageHidden(this.pageHidden);
    this.tabs.push(tab);
    return tab;
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
    this.saveTimer = this.options.clock.setTimeout(() => this.persist(false), 250);
  }

  private buildSnapshot(): WorkspaceSnapshot {
    const held = new Set(this.tabs.map((t) => t.sessionId));
    return {
      host: this.options.runtime.snapshot, handshake: this.handshake, daemon: this.daemon, sync: this.sync,
      tabs: this.tabs.map((t) => t.view), activeTabId: this.activeTabId,
      unclaimed: this.sync.sessions.filter((s) => !held.has(s.id)), warnings: this.warnings, error: this.error,
    };
  }
}

function basename(path: string): string {
  return path.split('/').filter(Boolean).pop() ?? path;
}

function describe(error: unknown): string {
  if (error instanceof RequestError) {
    const f = error.failure;
    if (f.kind === 'command_error') return f.error.message;
    if (f.kind === 'disconnected') return `disconnected (${f.reason.kind})`;
    return f.kind.replace('_', ' ');
  }
  return error instanceof Error ? error.message : String(error);
}
