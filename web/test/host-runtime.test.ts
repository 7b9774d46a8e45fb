import { describe, expect, it } from 'vitest';
import { DaemonClient } from '../src/client/daemon-client';
import { HostRuntime, StaleGenerationError } from '../src/client/host-runtime';
import { FakeClock } from './support/fake-clock';
import { FakeNetwork } from './support/fake-transport';

function makeRuntime() {
  const clock = new FakeClock();
  const active = new FakeNetwork();
  const probes = new FakeNetwork();
  const runtime = new HostRuntime({
    clock,
    probeTimeoutMs: 3000,
    createClient: (role, name) => new DaemonClient({
      name,
      transportFactory: role === 'active' ? active.factory : probes.factory,
      clock,
      policy: { connectTimeoutMs: 1000, retryDelay: () => 100 },
      hello: () => ({ type: 'hello', clientSessionKey: 'test-key-123', protocol: 1 }),
    }),
  });
  return { runtime, clock, active, probes };
}

describe('HostRuntime', () => {
  it('boots, connects the active client, and goes online -> degraded -> online', () => {
    const { runtime, active, clock } = makeRuntime();
    expect(runtime.snapshot.status).toBe('booting');
    runtime.start();
    expect(runtime.snapshot).toMatchObject({ status: 'connecting_active', generation: 1 });
    active.last().open();
    expect(runtime.snapshot).toMatchObject({ status: 'online', everOnline: true });
    active.last().drop();
    expect(runtime.snapshot).toMatchObject({ status: 'degraded', lastError: { kind: 'connection_lost' } });
    clock.advance(100);
    active.last().open();
    expect(runtime.snapshot.status).toBe('online');
  });

  it('stays connecting_active (not degraded) while it has never been online', () => {
    const { runtime, clock } = makeRuntime();
    runtime.start();
    clock.advance(1000);
    expect(runtime.snapshot).toMatchObject({ status: 'connecting_active', lastError: { kind: 'connect_timeout' } });
  });

  it('replacing the active client bumps the generation and disposes the previous one', () => {
    const { runtime, active } = makeRuntime();
    runtime.start();
    const first = active.last();
    first.open();
    runtime.replaceActive();
    expect(runtime.snapshot.generation).toBe(2);
    expect(first.closedByClient).toBe(true);
    expect(active.live()).toHaveLength(1);
  });

  it('events from a replaced client never reach listeners', () => {
    const { runtime, active } = makeRuntime();
    const seen: number[] = [];
    runtime.onEvent(({ generation }) => seen.push(generation));
    runtime.start();
    const first = active.last();
    first.open();
    first.text({ type: 'sessions_changed', sessions: [] });
    runtime.replaceActive();
    first.handlers.onText(JSON.stringify({ type: 'sessions_changed', sessions: [] }));
    active.last().open();
    active.last().text({ type: 'sessions_changed', sessions: [] });
    expect(seen).toEqual([1, 2]);
  });

  it('a completion that outlives its generation is rejected as stale', async () => {
    const { runtime, active } = makeRuntime();
    runtime.start();
    active.last().open();
    const connection = active.last();
    const pending = runtime.request({ type: 'list_sessions' });
    const reqId = connection.commands()[1]!.req_id;
    runtime.replaceActive();
    connection.handlers.onText(JSON.stringify({ type: 'session_list', req_id: reqId, sessions: [] }));
    await expect(pending).rejects.toBeInstanceOf(StaleGenerationError);
  });

  it('guarded() lets a completion through while its generation is current', async () => {
    const { runtime } = makeRuntime();
    runtime.start();
    await expect(runtime.guarded(runtime.generation, Promise.resolve(7))).resolves.toBe(7);
    const old = runtime.generation;
    const late = runtime.guarded(old, new Promise((resolve) => setTimeout(() => resolve(8), 5)));
    runtime.replaceActive();
    await expect(late).rejects.toBeInstanceOf(StaleGenerationError);
    expect(runtime.isCurrent(old)).toBe(false);
  });

  it('probes run in parallel without touching the active client or its status', async () => {
    const { runtime, active, probes, clock } = makeRuntime();
    runtime.start();
    active.last().open();
    const before = runtime.snapshot;
    const fast = runtime.probe();
    const slow = runtime.probe();
    clock.advance(12);
    probes.connections[0]!.open();
    probes.connections[1]!.drop(1006);
    await expect(fast).resolves.toMatchObject({ ok: true, latencyMs: 12 });
    await expect(slow).resolves.toMatchObject({ ok: false, reason: { kind: 'connect_failed' } });
    const after = runtime.snapshot;
    expect(after.status).toBe('online');
    expect(after.generation).toBe(before.generation);
    expect(after.connection).toBe(before.connection);
    expect(Object.keys(after.probes)).toEqual(['probe#1', 'probe#2']);
    expect(probes.live()).toHaveLength(0);
    expect(active.live()).toHaveLength(1);
    expect(active.connections).toHaveLength(1);
  });

  it('a probe that never connects times out and is disposed', async () => {
    const { runtime, probes, clock } = makeRuntime();
    runtime.start();
    const result = runtime.probe();
    clock.advance(999);
    expect(probes.live()).toHaveLength(1);
    clock.advance(2001);
    await expect(result).resolves.toMatchObject({ ok: false });
    expect(probes.live()).toHaveLength(0);
    expect(runtime.snapshot.status).toBe('connecting_active');
  });

  it('a failing probe does not make an online host degraded', async () => {
    const { runtime, active, probes } = makeRuntime();
    runtime.start();
    active.last().open();
    const result = runtime.probe();
    probes.last().drop(1006);
    await result;
    expect(runtime.snapshot).toMatchObject({ status: 'online', lastError: null });
  });

  it('stop disposes the active client, ignores its late events and refuses restarts', () => {
    const { runtime, active, clock } = makeRuntime();
    const seen: string[] = [];
    runtime.onEvent(({ event }) => seen.push(event.type));
    runtime.start();
    const connection = active.last();
    connection.open();
    runtime.stop();
    connection.handlers.onText(JSON.stringify({ type: 'sessions_changed', sessions: [] }));
    runtime.replaceActive();
    clock.advance(60_000);
    expect(runtime.snapshot.status).toBe('stopped');
    expect(seen).toEqual([]);
    expect(active.connections).toHaveLength(1);
  });
});
