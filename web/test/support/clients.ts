import { DaemonClient } from '../../src/client/daemon-client';
import { FakeClock } from './fake-clock';
import { FakeNetwork } from './fake-transport';

export function makeClient(clock = new FakeClock(), network = new FakeNetwork(), connectTimeoutMs = 1000) {
  const client = new DaemonClient({
    transportFactory: network.factory,
    clock,
    policy: { connectTimeoutMs, retryDelay: (attempt) => 100 * attempt },
    hello: () => ({ type: 'hello', clientSessionKey: 'test-key-123', protocol: 1, client: 'test' }),
    requestTimeoutMs: 2000,
  });
  return { client, clock, network };
}
