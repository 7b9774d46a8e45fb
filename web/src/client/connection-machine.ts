// The DaemonClient connection machine as a pure reducer: (state, event) -> (state, effects).
// idle -> connecting -> connected -> disconnected -> connecting ...; `disposed` is terminal and
// every event but DISPOSE (idempotent) is ignored there.
import type { TransportClose } from './transport';

export type ConnectionStatus = 'idle' | 'connecting' | 'connected' | 'disconnected' | 'disposed';

/** Why the client is not connected; machine-readable, shown to people by the indicator. */
export type DisconnectReason =
  | { kind: 'connect_timeout' }
  | { kind: 'connect_failed'; code: number }
  | { kind: 'connection_lost'; code: number }
  | { kind: 'closed_by_daemon'; code: number; reason: string }
  | { kind: 'rejected'; code: number; reason: string }
  | { kind: 'transport_error' }
  | { kind: 'disposed' };

export interface ConnectionState {
  status: ConnectionStatus;
  /** Failed attempts since the last successful open (0 while connected). */
  attempt: number;
  reason: DisconnectReason | null;
  /** Delay of the scheduled retry while disconnected; null when none is scheduled. */
  retryInMs: number | null;
  /** Number of successful opens so far. */
  connections: number;
}

export type ConnectionEvent =
  | { type: 'CONNECT_REQUEST' }
  | { type: 'TRANSPORT_OPEN' }
  | { type: 'TRANSPORT_CLOSE'; close: TransportClose }
  | { type: 'TRANSPORT_ERROR' }
  | { type: 'CONNECT_TIMEOUT' }
  | { type: 'RECONNECT_TIMER' }
  | { type: 'DISPOSE' };

export type ConnectionEffect =
  | { type: 'open_transport' }
  | { type: 'close_transport' }
  | { type: 'start_connect_timer'; ms: number }
  | { type: 'cancel_connect_timer' }
  | { type: 'start_reconnect_timer'; ms: number }
  | { type: 'cancel_reconnect_timer' }
  | { type: 'fail_inflight'; reason: DisconnectReason }
  | { type: 'opened' };

export interface ConnectionPolicy {
  connectTimeoutMs: number;
  /** Delay before retry number `attempt` (1-based); null means do not retry. */
  retryDelay(attempt: number, reason: DisconnectReason): number | null;
}

export const INITIAL_CONNECTION_STATE: ConnectionState = {
  status: 'idle', attempt: 0, reason: null, retryInMs: null, connections: 0,
};

/** Close codes after which retrying cannot help: protocol error, policy violation (bad key). */
const FATAL_CLOSE_CODES = new Set([1002, 1003, 1007, 1008]);

export function classifyClose(close: TransportClose): DisconnectReason {
  if (FATAL_CLOSE_CODES.has(close.code)) return { kind: 'rejected', code: close.code, reason: close.reason };
  if (!close.wasOpen) return { kind: 'connect_failed', code: close.code };
  if (close.code === 1000 || close.code === 1001) return { kind: 'closed_by_daemon', code: close.code, reason: close.reason };
  return { kind: 'connection_lost', code: close.code };
}

export function isRetryable(reason: DisconnectReason): boolean {
  return reason.kind !== 'rejected' && reason.kind !== 'disposed';
}

export interface Transition {
  state: ConnectionState;
  effects: ConnectionEffect[];
}

const unchanged = (state: ConnectionState): Transition => ({ state, effects: [] });

function startConnecting(state: ConnectionState, policy: ConnectionPolicy, extra: ConnectionEffect[]): Transition {
  return {
    state: { ...state, status: 'connecting', retryInMs: null },
    effects: [...extra, { type: 'open_transport' }, { type: 'start_connect_timer', ms: policy.connectTimeoutMs }],
  };
}

function disconnect(state: ConnectionState, reason: DisconnectReason, policy: ConnectionPolicy): Transition {
  const attempt = state.attempt + 1;
  const delay = isRetryable(reason) ? policy.retryDelay(attempt, reason) : null;
  const effects: ConnectionEffect[] = [
    { type: 'cancel_connect_timer' },
    { type: 'close_transport' },
    { type: 'fail_inflight', reason },
  ];
  if (delay !== null) effects.push({ type: 'start_reconnect_timer', ms: delay });
  return { state: { ...state, status: 'disconnected', attempt, reason, retryInMs: delay }, effects };
}

export function transition(state: ConnectionState, event: ConnectionEvent, policy: ConnectionPolicy): Transition {
  if (state.status === 'disposed') return unchanged(state);
  if (event.type === 'DISPOSE') {
    return {
      state: { ...state, status: 'disposed', reason: { kind: 'disposed' }, retryInMs: null },
      effects: [
        { type: 'cancel_connect_timer' },
        { type: 'cancel_reconnect_timer' },
        { type: 'close_transport' },
        { type: 'fail_inflight', reason: { kind: 'disposed' } },
      ],
    };
  }
  switch (state.status) {
    case 'idle':
      return event.type === 'CONNECT_REQUEST' ? startConnecting(state, policy, []) : unchanged(state);
    case 'connecting':
      switch (event.type) {
        case 'TRANSPORT_OPEN':
          return {
            state: { ...state, status: 'connected', attempt: 0, reason: null, connections: state.connections + 1 },
            effects: [{ type: 'cancel_connect_timer' }, { type: 'opened' }],
          };
        case 'CONNECT_TIMEOUT':
          return disconnect(state, { kind: 'connect_timeout' }, policy);
        case 'TRANSPORT_CLOSE':
          return disconnect(state, classifyClose(event.close), policy);
        case 'TRANSPORT_ERROR':
          return disconnect(state, { kind: 'transport_error' }, policy);
        default:
          return unchanged(state);
      }
    case 'connected':
      switch (event.type) {
        case 'TRANSPORT_CLOSE':
          return disconnect(state, classifyClose(event.close), policy);
        case 'TRANSPORT_ERROR':
          return disconnect(state, { kind: 'transport_error' }, policy);
        default:
          return unchanged(state);
      }
    case 'disconnected':
      switch (event.type) {
        case 'RECONNECT_TIMER':
          return state.retryInMs === null ? unchanged(state) : startConnecting(state, policy, []);
        case 'CONNECT_REQUEST':
          return startConnecting(state, policy, [{ type: 'cancel_reconnect_timer' }]);
        default:
          return unchanged(state);
      }
  }
}
