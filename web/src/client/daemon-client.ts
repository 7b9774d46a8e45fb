// DaemonClient: drives the connection machine, owns exactly one transport at a time (one per
// connection attempt, closed before the next is made), sends `hello` on open, and matches replies
// to requests by req_id. Requests still in flight when the connection ends are failed.
//
// Output frames of one session that arrive back to back in one batch of a transport that batches
// (the page's socket worker hands a flood over in batches) reach the listeners as one frame, when
// the batch ends: per frame the page checks, writes and acknowledges, and with a flood's 64 KiB
// frames that work took about a fifth of the page's time (docs/benchmarks.md). Only contiguous
// frames merge, and anything else from the socket (an event, another frame, the close) hands the
// merged frame over first, so the order is the daemon's. Outside a batch every frame goes at once.
import type { Clock, TimerHandle } from '../core/clock';
import { Listeners } from '../core/listeners';
import type { Disposable } from '../core/disposable';
import { decodeFrame, FRAME_OUTPUT, type BinaryFrame } from '../protocol/binary-frames';
import { isReply, parseServerEvent, type ClientCommand, type CommandError, type ServerEvent } from '../protocol/messages';
import {
  INITIAL_CONNECTION_STATE, transition, type ConnectionEffect, type ConnectionEvent, type ConnectionPolicy,
  type ConnectionState, type DisconnectReason,
} from './connection-machine';
import type { Transport, TransportFactory } from './transport';

/** Why a request failed: the daemon said no, the link dropped, or nobody answered in time. */
export type RequestFailure =
  | { kind: 'command_error'; error: CommandError }
  | { kind: 'disconnected'; reason: DisconnectReason }
  | { kind: 'not_connected' }
  | { kind: 'timeout' };

export class RequestError extends Error {
  constructor(readonly failure: RequestFailure) {
    super(failure.kind === 'command_error' ? `${failure.error.code}: ${failure.error.message}` : failure.kind);
  }
}

export interface DaemonClientOptions {
  transportFactory: TransportFactory;
  clock: Clock;
  policy: ConnectionPolicy;
  /** The hello sent on every open. */
  hello: () => ClientCommand;
  requestTimeoutMs?: number;
  /** A name for log lines (e.g. "active#3" or "probe#1"). */
  name?: string;
  log?: (line: string) => void;
}

interface Pending {
  resolve(event: ServerEvent): void;
  reject(error: RequestError): void;
  timer: TimerHandle;
}

export class DaemonClient {
  private machine: ConnectionState = INITIAL_CONNECTION_STATE;
  private transport: Transport | null = null;
  private connectTimer: TimerHandle | null = null;
  private reconnectTimer: TimerHandle | null = null;
  private readonly pending = new Map<string, Pending>();
  private nextRequest = 1;
  private readonly stateListeners = new Listeners<ConnectionState>();
  private readonly eventListeners = new Listeners<ServerEvent>();
  private readonly frameListeners = new Listeners<BinaryFrame>();

  constructor(private readonly options: DaemonClientOptions) {}

  get state(): ConnectionState {
    return this.machine;
  }

  onState(listener: (state: ConnectionState) => void): Disposable {
    return this.stateListeners.subscribe(listener);
  }

  onEvent(listener: (event: ServerEvent) => void): Disposable {
    return this.eventListeners.subscribe(listener);
  }

  onFrame(listener: (frame: BinaryFrame) => void): Disposable {
    return this.frameListeners.subscribe(listener);
  }

  /** ensureConnected: starts connecting from idle, retries now from disconnected; no-op otherwise. */
  connect(): void {
    this.dispatch({ type: 'CONNECT_REQUEST' });
  }

  dispose(): void {
    this.heldOutput = null;
    this.dispatch({ type: 'DISPOSE' });
  }

  /** Sends a command that expects no reply; false when not connected. */
  send(command: ClientCommand): boolean {
    return this.machine.status === 'connected' && this.transport !== null && this.transport.send(JSON.stringify(command));
  }

  sendBinary(frame: Uint8Array): boolean {
    return this.machine.status === 'connected' && this.transport !== null && this.transport.send(frame);
  }

  bufferedAmount(): number {
    return this.transport?.bufferedAmount() ?? 0;
  }

  /** Sends a command with a fresh req_id and resolves with its reply (command_error rejects). */
  request<T extends ServerEvent = ServerEvent>(command: ClientCommand): Promise<T> {
    if (this.machine.status !== 'connected' || this.transport === null) {
      return Promise.reject(new RequestError({ kind: 'not_connected' }));
    }
    const reqId = `r${this.nextRequest++}`;
    return new Promise<T>((resolve, reject) => {
      const timer = this.options.clock.setTimeout(() => {
        if (this.pending.delete(reqId)) reject(new RequestError({ kind: 'timeout' }));
      }, this.options.requestTimeoutMs ?? 15_000);
      this.pending.set(reqId, { resolve: resolve as (event: ServerEvent) => void, reject, timer });
      if (!this.transport!.send(JSON.stringify({ ...command, req_id: reqId }))) {
        this.settle(reqId)?.reject(new RequestError({ kind: 'not_connected' }));
      }
    });
  }

  private dispatch(event: ConnectionEvent): void {
    const before = this.machine;
    const { state, effects } = transition(before, event, this.options.policy);
    this.machine = state;
    if (state !== before && (state.status !== before.status || state.reason !== before.reason)) {
      this.options.log?.(`${this.options.name ?? 'client'}: ${before.status} -> ${state.status} (${event.type}${state.reason ? `, ${state.reason.kind}` : ''})`);
    }
    for (const effect of effects) this.run(effect);
    if (state !== before) this.stateListeners.emit(state);
  }

  private run(effect: ConnectionEffect): void {
    const clock = this.options.clock;
    switch (effect.type) {
      case 'open_transport':
        this.openTransport();
        break;
      case 'close_transport':
        this.transport?.close();
        this.transport = null;
        break;
      case 'start_connect_timer':
        this.connectTimer = clock.setTimeout(() => this.dispatch({ type: 'CONNECT_TIMEOUT' }), effect.ms);
        break;
      case 'cancel_connect_timer':
        clock.clearTimeout(this.connectTimer);
        this.connectTimer = null;
        break;
      case 'start_reconnect_timer':
        this.reconnectTimer = clock.setTimeout(() => this.dispatch({ type: 'RECONNECT_TIMER' }), effect.ms);
        break;
      case 'cancel_reconnect_timer':
        clock.clearTimeout(this.reconnectTimer);
        this.reconnectTimer = null;
        break;
      case 'fail_inflight':
        for (const reqId of [...this.pending.keys()]) {
          this.settle(reqId)?.reject(new RequestError({ kind: 'disconnected', reason: effect.reason }));
        }
        break;
      case 'opened':
        this.transport?.send(JSON.stringify(this.options.hello()));
        break;
    }
  }

  private openTransport(): void {
    this.transport?.close();
    this.inBatch = false;
    this.heldOutput = null;
    let self: Transport | null = null;
    const mine = () => self !== null && self === this.transport;
    self = this.options.transportFactory({
      onOpen: () => mine() && this.dispatch({ type: 'TRANSPORT_OPEN' }),
      onClose: (close) => mine() && this.releaseOutput() && this.dispatch({ type: 'TRANSPORT_CLOSE', close }),
      onError: () => mine() && this.releaseOutput() && this.dispatch({ type: 'TRANSPORT_ERROR' }),
      onText: (text) => mine() && this.releaseOutput() && this.receiveText(text),
      onBinary: (bytes) => {
        if (!mine()) return;
        const frame = decodeFrame(bytes);
        if (frame) this.receiveFrame(frame);
      },
      onBatch: (open) => {
        if (!mine()) return;
        this.inBatch = open;
        if (!open) this.releaseOutput();
      },
    });
    this.transport = self;
  }

  /** Whether the transport is handing over a batch; output held for merging: contiguous frames of one session of it. */
  private inBatch = false;
  private heldOutput: { sessionId: string; offset: number; parts: Uint8Array[] } | null = null;

  private receiveFrame(frame: BinaryFrame): void {
    const held = this.heldOutput;
    if (frame.kind === FRAME_OUTPUT && held && held.sessionId === frame.sessionId && frame.offset - frame.payload.length === held.offset) {
      held.parts.push(frame.payload);
      held.offset = frame.offset;
      return;
    }
    this.releaseOutput();
    if (frame.kind !== FRAME_OUTPUT || !this.inBatch) {
      this.frameListeners.emit(frame);
      return;
    }
    this.heldOutput = { sessionId: frame.sessionId, offset: frame.offset, parts: [frame.payload] };
  }

  /** Hands the held output to the listeners as one frame; true, so it chains before what follows it. */
  private releaseOutput(): true {
    const held = this.heldOutput;
    if (!held) return true;
    this.heldOutput = null;
    let payload = held.parts[0]!;
    if (held.parts.length > 1) {
      payload = new Uint8Array(held.parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const part of held.parts) {
        payload.set(part, at);
        at += part.length;
      }
    }
    this.frameListeners.emit({ kind: FRAME_OUTPUT, sessionId: held.sessionId, offset: held.offset, payload });
    return true;
  }

  private receiveText(text: string): void {
    const event = parseServerEvent(text);
    if (!event) return;
    if (isReply(event) && event.req_id !== undefined) {
      const waiter = this.settle(event.req_id);
      if (waiter) {
        if (event.type === 'command_error') waiter.reject(new RequestError({ kind: 'command_error', error: event }));
        else waiter.resolve(event);
      }
    }
    this.eventListeners.emit(event);
  }

  private settle(reqId: string): Pending | undefined {
    const waiter = this.pending.get(reqId);
    if (!waiter) return undefined;
    this.pending.delete(reqId);
    this.options.clock.clearTimeout(waiter.timer);
    return waiter;
  }
}
