import { describe, expect, it } from 'vitest';
import { DaemonClient } from '../src/client/daemon-client';
import { HostRuntime } from '../src/client/host-runtime';
import { AccessWatch, problemFrom, shouldCheck, type AccessProblem, type StatusAnswer } from '../src/client/access-watch';
import { FakeClock } from './support/fake-clock';
import { FakeNetwork } from './support/fake-transport';

function setUp() {
  const clock = new FakeClock();
  const network = new FakeNetwork();
  const runtime = new HostRuntime({
    clock,
    createClient: (_role, name) => new DaemonClient({
      name, transportFactory: network.factory, clock,
      policy: { connectTimeoutMs: 1000, retryDelay: () => 100 },
      hello: () => ({ type: 'hello', clientSessionKey: 'test-key-123', protocol: 1 }),
    }),
  });
  const answers: StatusAnswer[] = [];
  let checks = 0;
  const changes: (AccessProblem | null)[] = [];
  const watch = new AccessWatch(runtime, async () => {
    checks++;
    return answers.shift() ?? 200;
  }, (p) => changes.push(p));
  return { clock, network, runtime, answers, watch, changes, checks: () => checks };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('telling a wrong token from an unreachable daemon', () => {
  it('maps the REST answer: 401 is a wrong token, no answer is unreachable, a refused upgrade the daemon answers for is its origin check', () => {
    expect(problemFrom(401, 'connect_failed')).toBe('wrong_token');
    expect(problemFrom('host_offline', 'connect_failed')).toBe('host_offline');
    expect(problemFrom('no_answer', 'connect_timeout')).toBe('unreachable');
    expect(problemFrom(200, 'connect_failed')).toBe('upgrade_refused');
    expect(problemFrom(200, 'connect_timeout')).toBeNull();
    expect(problemFrom(503, 'connect_failed')).toBeNull();
  });

  it('checks only attempts that failed before the connection opened, once each', () => {
    const down = { status: 'disconnected', attempt: 2, retryInMs: 100, connections: 0 } as const;
    expect(shouldCheck({ ...down, reason: { kind: 'connect_failed', code: 1006 } }, -1)).toBe(true);
    expect(shouldCheck({ ...down, reason: { kind: 'connect_timeout' } }, -1)).toBe(true);
    expect(shouldCheck({ ...down, reason: { kind: 'connect_failed', code: 1006 } }, 2)).toBe(false);
    expect(shouldCheck({ ...down, reason: { kind: 'connection_lost', code: 1006 } }, -1)).toBe(false);
    expect(shouldCheck({ ...down, status: 'connecting', reason: null }, -1)).toBe(false);
    expect(shouldCheck(null, -1)).toBe(false);
  });

  it('a refused upgrade answered 401 by the REST API stops the retries and reports a wrong token', async () => {
    const t = setUp();
    t.answers.push(401);
    t.runtime.start();
    t.network.last().drop(1006);
    await settle();
    expect(t.watch.problem).toBe('wrong_token');
    expect(t.runtime.snapshot.status).toBe('stopped');
    t.clock.advance(10_000);
    expect(t.network.connections).toHaveLength(1);
  });

  it('no answer at all reports an unreachable daemon and keeps retrying; connecting clears it', async () => {
    const t = setUp();
    t.answers.push('no_answer');
    t.runtime.start();
    t.network.last().drop(1006);
    await settle();
    expect(t.watch.problem).toBe('unreachable');
    t.clock.advance(100);
    expect(t.network.connections).toHaveLength(2);
    t.network.last().open();
    expect(t.watch.problem).toBeNull();
    expect(t.changes).toEqual(['unreachable', null]);
  });

  it('a daemon that takes the token but refuses the upgrade twice in a row is reported, and the page keeps retrying', async () => {
    const t = setUp();
    t.answers.push(200, 200);
    t.runtime.start();
    t.network.last().drop(1006);
    await settle();
    expect(t.watch.problem, 'once may be a daemon that came up in between').toBeNull();
    t.clock.advance(100);
    t.network.last().drop(1006);
    await settle();
    expect(t.watch.problem).toBe('upgrade_refused');
    t.clock.advance(100);
    expect(t.network.connections).toHaveLength(3);
  });

  it('an answer that arrives after the connection came back is ignored', async () => {
    const t = setUp();
    t.answers.push(401);
    t.runtime.start();
    t.network.last().drop(1006);
    t.clock.advance(100);
    t.network.last().open();
    await settle();
    expect(t.watch.problem).toBeNull();
    expect(t.runtime.snapshot.status).toBe('online');
  });

  it('a connection that was open and dropped is not checked until a new attempt fails', async () => {
    const t = setUp();
    t.runtime.start();
    t.network.last().open();
    t.network.last().drop(1006);
    await settle();
    expect(t.checks()).toBe(0);
    t.clock.advance(100);
    t.answers.push('no_answer');
    t.network.last().drop(1006);
    await settle();
    expect(t.checks()).toBe(1);
    expect(t.watch.problem).toBe('unreachable');
  });
});
