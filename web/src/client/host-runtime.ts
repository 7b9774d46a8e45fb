// HostRuntime: the one source of truth for the connection to one daemon. It owns the active
// DaemonClient and a generation number that changes whenever the active client is replaced or the
// runtime stops; every callback and async completion is checked against the generation it was
// started under, so stale completions cannot patch current state. Probe clients are separate,
// ephemeral, and never touch the active client or the snapshot's connection fields.
import type { Clock } from '../core/clock';
import { Listeners } from '../core/listeners';
import type { Disposable } from '../core/disposable';
import type { BinaryFrame } from '../protocol/binary-frames';
import type { ClientCommand, ServerEvent } from '../protocol/messages';
import type { ConnectionState, DisconnectReason } from './connection-machine';
import { RequestError, type DaemonClient } from './daemon-client';

export type HostStatus = 'booting' | 'connecting_active' | 'online' | 'degraded' | 'stopped';

export interface ProbeResult {
  ok: boolean;
  /** Time from start to an open connection, or to the failure. */
  latencyMs: number;
  reason: DisconnectReason | null;
  at: number;
}

export interface HostSnapshot {
  status: HostStatus;
  generation: number;
  connection: ConnectionState | null;
  /** The last reason the active client lost or failed its connection. */
  lastError: DisconnectReason | null;
  /** true once the active connection has been online at least once. */
  everOnline: boolean;
  probes: Record<string, ProbeResult>;
}

export interface HostRuntimeOptions {
  createClient(role: 'active' | 'probe', name: string): DaemonClient;
  clock: Clock;
  probeTimeoutMs?: number;
}

export class StaleGenerationError extends Error {
  constructor(readonly generation: number) {
    super(`stale completion from generation ${generation}`);
  }
}

export class HostRuntime {
  private active: DaemonClient | null = null;
  /** Subscriptions to the active client, disposed with it. */
  private activeSubscriptions: Disposable[] = [];
  private current: HostSnapshot = {
    status: 'booting', generation: 0, connection: null, lastError: null, everOnline: false, probes: {},
  };
  private probeCount = 0;
  private readonly snapshots = new Listeners<HostSnapshot>();
  private readonly events = new Listeners<{ generation: number; event: ServerEvent }>();
  private readonly frames = new Listeners<{ generation: number; frame: BinaryFrame }>();

  constructor(private readonly options: HostRuntimeOptions) {}

  get snapshot(): HostSnapshot {
    return this.current;
  }

  get generation(): number {
    return this.current.generation;
  }

  subscribe(listener: (snapshot: HostSnapshot) => void): Disposable {
    return this.snapshots.subscribe(listener);
  }

  onEvent(listener: (message: { generation: number; event: ServerEvent }) => void): Disposable {
    return this.events.subscribe(listener);
  }

  onFrame(listener: (message: { generation: number; frame: BinaryFrame }) => void): Disposable {
    return this.frames.subscribe(listener);
  }

  /** Creates and connects the first active client. */
  start(): void {
    if (this.current.status !== 'booting' || this.active) return;
    this.replaceActive();
  }

  /**
   * Switches to a new active client atomically: create it, subscribe it under the next
   * generation, promote the snapshot, then dispose the previous client.
   */
  replaceActive(): void {
    if (this.current.status === 'stopped') return;
    const generation = this.current.generation + 1;
    const next = this.options.createClient('active', `active#${generation}`);
    const previous = this.active;
    const previousSubscriptions = this.activeSubscriptions;
    const guard = <T>(fn: (value: T) => void) => (value: T) => {
      if (this.current.generation === generation && this.current.status !== 'stopped') fn(value);
    };
    this.activeSubscriptions = [
      next.onState(guard((state: ConnectionState) => this.onActiveState(state))),
      next.onEvent(guard((event: ServerEvent) => this.events.emit({ generation, event }))),
      next.onFrame(guard((frame: BinaryFrame) => this.frames.emit({ generation, frame }))),
    ];
    this.active = next;
    this.publish({ ...this.current, generation, status: 'connecting_active', connection: next.state });
    for (const subscription of previousSubscriptions) subscription.dispose();
    previous?.dispose();
    next.connect();
  }

  /** Asks the active client to connect now (e.g. the browser came back online). */
  reconnectNow(): void {
    this.active?.connect();
  }

  stop(): void {
    if (this.current.status === 'stopped') return;
    for (const subscription of this.activeSubscriptions) subscription.dispose();
    this.activeSubscriptions = [];
    this.active?.dispose();
    this.active = null;
    this.publish({ ...this.current, generation: this.current.generation + 1, status: 'stopped', connection: null });
  }

  send(command: ClientCommand): boolean {
    return this.active?.send(command) ?? false;
  }

  sendBinary(frame: Uint8Array): boolean {
    return this.active?.sendBinary(frame) ?? false;
  }

  /**
   * A request on the active client whose completion only arrives while its generation is
   * current; a completion that outlived its generation rejects with StaleGenerationError.
   */
  request<T extends ServerEvent = ServerEvent>(command: ClientCommand): Promise<T> {
    const generation = this.current.generation;
    if (!this.active) return Promise.reject(new RequestError({ kind: 'not_connected' }));
    return this.guarded(generation, this.active.request<T>(command));
  }

  /** Wraps any async work started under `generation` so it cannot land after a switch. */
  guarded<T>(generation: number, work: Promise<T>): Promise<T> {
    const check = () => this.current.generation === generation && this.current.status !== 'stopped';
    return work.then(
      (value) => {
        if (!check()) throw new StaleGenerationError(generation);
        return value;
      },
      (error: unknown) => {
        throw check() ? error : new StaleGenerationError(generation);
      },
    );
  }

  isCurrent(generation: number): boolean {
    return this.current.generation === generation && this.current.status !== 'stopped';
  }

  /**
   * Opens an ephemeral probe client, measures how long the daemon takes to accept a
   * connection, and disposes it. The result lands in `probes` only; nothing else changes.
   */
  probe(): Promise<ProbeResult> {
    const id = `probe#${++this.probeCount}`;
    const client = this.options.createClient('probe', id);
    const clock = this.options.clock;
    const started = clock.now();
    return new Promise<ProbeResult>((resolve) => {
      let done = false;
      const finish = (ok: boolean, reason: DisconnectReason | null) => {
        if (done) return;
        done = true;
        clock.clearTimeout(timer);
        subscription.dispose();
        client.dispose();
        const result: ProbeResult = { ok, latencyMs: clock.now() - started, reason, at: clock.now() };
        if (this.current.status !== 'stopped') {
          this.publish({ ...this.current, probes: { ...this.current.probes, [id]: result } });
        }
        resolve(result);
      };
      const timer = clock.setTimeout(() => finish(false, { kind: 'connect_timeout' }), this.options.probeTimeoutMs ?? 5_000);
      const subscription = client.onState((state) => {
        if (state.status === 'connected') finish(true, null);
        else if (state.status === 'disconnected') finish(false, state.reason);
      });
      client.connect();
    });
  }

  private onActiveState(state: ConnectionState): void {
    const everOnline = this.current.everOnline || state.status === 'connected';
    let status: HostStatus;
    if (state.status === 'connected') status = 'online';
    else if (state.status === 'disposed') status = 'stopped';
    else status = everOnline ? 'degraded' : 'connecting_active';
    const lastError = state.status === 'disconnected' ? state.reason : this.current.lastError;
    this.publish({ ...this.current, status, connection: state, everOnline, lastError });
  }

  private publish(next: HostSnapshot): void {
    this.current = next;
    this.snapshots.emit(next);
  }
}
