import { describe, expect, it } from 'vitest';
import {
  classifyClose, INITIAL_CONNECTION_STATE, transition, type ConnectionEvent, type ConnectionPolicy, type ConnectionState,
} from '../src/client/connection-machine';

const policy: ConnectionPolicy = { connectTimeoutMs: 5000, retryDelay: (attempt) => attempt * 100 };
const run = (state: ConnectionState, ...events: ConnectionEvent[]) =>
  events.reduce((s, e) => transition(s, e, policy).state, state);
const types = (state: ConnectionState, event: ConnectionEvent) => transition(state, event, policy).effects.map((e) => e.type);

const connecting = run(INITIAL_CONNECTION_STATE, { type: 'CONNECT_REQUEST' });
const connected = run(connecting, { type: 'TRANSPORT_OPEN' });
const lost: ConnectionEvent = { type: 'TRANSPORT_CLOSE', close: { code: 1006, reason: '', wasOpen: true } };
const disconnected = run(connected, lost);

describe('connection machine', () => {
  it('idle -> connecting opens a transport and arms the connect timeout', () => {
    expect(connecting.status).toBe('connecting');
    expect(transition(INITIAL_CONNECTION_STATE, { type: 'CONNECT_REQUEST' }, policy).effects).toEqual([
      { type: 'open_transport' }, { type: 'start_connect_timer', ms: 5000 },
    ]);
  });

  it('idle ignores everything but CONNECT_REQUEST and DISPOSE', () => {
    for (const event of [{ type: 'TRANSPORT_OPEN' }, { type: 'CONNECT_TIMEOUT' }, { type: 'RECONNECT_TIMER' }, lost] as ConnectionEvent[]) {
      expect(transition(INITIAL_CONNECTION_STATE, event, policy)).toEqual({ state: INITIAL_CONNECTION_STATE, effects: [] });
    }
    expect(run(INITIAL_CONNECTION_STATE, { type: 'DISPOSE' }).status).toBe('disposed');
  });

  it('connecting -> connected on open, resets attempts, counts the connection and sends hello', () => {
    const failedOnce = run(connecting, { type: 'CONNECT_TIMEOUT' }, { type: 'RECONNECT_TIMER' });
    expect(failedOnce.attempt).toBe(1);
    const open = run(failedOnce, { type: 'TRANSPORT_OPEN' });
    expect(open).toMatchObject({ status: 'connected', attempt: 0, reason: null, connections: 1 });
    expect(types(failedOnce, { type: 'TRANSPORT_OPEN' })).toEqual(['cancel_connect_timer', 'opened']);
  });

  it('connecting -> disconnected on connect timeout, closes the transport and schedules a retry', () => {
    const { state, effects } = transition(connecting, { type: 'CONNECT_TIMEOUT' }, policy);
    expect(state).toMatchObject({ status: 'disconnected', attempt: 1, reason: { kind: 'connect_timeout' }, retryInMs: 100 });
    expect(effects.map((e) => e.type)).toEqual(['cancel_connect_timer', 'close_transport', 'fail_inflight', 'start_reconnect_timer']);
  });

  it('connecting -> disconnected when the transport closes or errors before opening', () => {
    const refused = run(connecting, { type: 'TRANSPORT_CLOSE', close: { code: 1006, reason: '', wasOpen: false } });
    expect(refused.reason).toEqual({ kind: 'connect_failed', code: 1006 });
    expect(run(connecting, { type: 'TRANSPORT_ERROR' }).reason).toEqual({ kind: 'transport_error' });
  });

  it('connected -> disconnected on close or error, failing in-flight requests', () => {
    expect(disconnected).toMatchObject({ status: 'disconnected', attempt: 1, reason: { kind: 'connection_lost', code: 1006 } });
    expect(types(connected, lost)).toContain('fail_inflight');
    expect(run(connected, { type: 'TRANSPORT_ERROR' }).status).toBe('disconnected');
  });

  it('connected ignores connect timeouts, reconnect timers and connect requests', () => {
    for (const type of ['CONNECT_TIMEOUT', 'RECONNECT_TIMER', 'CONNECT_REQUEST', 'TRANSPORT_OPEN'] as const) {
      expect(transition(connected, { type }, policy)).toEqual({ state: connected, effects: [] });
    }
  });

  it('disconnected -> connecting on the reconnect timer, or at once on CONNECT_REQUEST', () => {
    expect(run(disconnected, { type: 'RECONNECT_TIMER' }).status).toBe('connecting');
    expect(types(disconnected, { type: 'CONNECT_REQUEST' })).toEqual(['cancel_reconnect_timer', 'open_transport', 'start_connect_timer']);
  });

  it('backs off with growing attempts across repeated failures', () => {
    let state = connecting;
    const delays: (number | null)[] = [];
    for (let i = 0; i < 3; i++) {
      state = run(state, { type: 'CONNECT_TIMEOUT' });
      delays.push(state.retryInMs);
      state = run(state, { type: 'RECONNECT_TIMER' });
    }
    expect(delays).toEqual([100, 200, 300]);
  });

  it('does not retry after a rejection (protocol error or bad client key)', () => {
    const rejected = run(connected, { type: 'TRANSPORT_CLOSE', close: { code: 1008, reason: 'bad key', wasOpen: true } });
    expect(rejected).toMatchObject({ status: 'disconnected', reason: { kind: 'rejected', code: 1008 }, retryInMs: null });
    expect(run(rejected, { type: 'RECONNECT_TIMER' }).status).toBe('disconnected');
    expect(run(rejected, { type: 'CONNECT_REQUEST' }).status).toBe('connecting');
  });

  it('a policy may refuse to retry', () => {
    const never: ConnectionPolicy = { connectTimeoutMs: 10, retryDelay: () => null };
    const { state, effects } = transition(connecting, { type: 'CONNECT_TIMEOUT' }, never);
    expect(state.retryInMs).toBeNull();
    expect(effects.map((e) => e.type)).not.toContain('start_reconnect_timer');
  });

  it('disposed is terminal from every state; DISPOSE is idempotent', () => {
    for (const from of [INITIAL_CONNECTION_STATE, connecting, connected, disconnected]) {
      const { state, effects } = transition(from, { type: 'DISPOSE' }, policy);
      expect(state.status).toBe('disposed');
      expect(effects.map((e) => e.type)).toEqual(['cancel_connect_timer', 'cancel_reconnect_timer', 'close_transport', 'fail_inflight']);
      const all: ConnectionEvent[] = [
        { type: 'CONNECT_REQUEST' }, { type: 'TRANSPORT_OPEN' }, lost, { type: 'TRANSPORT_ERROR' },
        { type: 'CONNECT_TIMEOUT' }, { type: 'RECONNECT_TIMER' }, { type: 'DISPOSE' },
      ];
      for (const event of all) expect(transition(state, event, policy)).toEqual({ state, effects: [] });
    }
  });

  it('classifies close codes into typed reasons', () => {
    expect(classifyClose({ code: 1000, reason: 'bye', wasOpen: true })).toEqual({ kind: 'closed_by_daemon', code: 1000, reason: 'bye' });
    expect(classifyClose({ code: 1001, reason: '', wasOpen: true }).kind).toBe('closed_by_daemon');
    expect(classifyClose({ code: 1006, reason: '', wasOpen: true }).kind).toBe('connection_lost');
    expect(classifyClose({ code: 1006, reason: '', wasOpen: false }).kind).toBe('connect_failed');
    expect(classifyClose({ code: 1002, reason: 'unsupported', wasOpen: true }).kind).toBe('rejected');
    expect(classifyClose({ code: 1009, reason: 'too big', wasOpen: true }).kind).toBe('connection_lost');
  });
});
