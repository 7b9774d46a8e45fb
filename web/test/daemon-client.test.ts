import { describe, expect, it } from 'vitest';
import { RequestError } from '../src/client/daemon-client';
import { encodeFrame } from '../src/protocol/binary-frames';
import { makeClient } from './support/clients';

describe('DaemonClient', () => {
  it('connects, sends hello first, and reports every state change', () => {
    const { client, network } = makeClient();
    const seen: string[] = [];
    client.onState((s) => seen.push(s.status));
    client.connect();
    network.last().open();
    expect(seen).toEqual(['connecting', 'connected']);
    expect(network.last().commands()[0]).toEqual({ type: 'hello', clientSessionKey: 'test-key-123', protocol: 1, client: 'test' });
  });

  it('gives up a connection attempt after the connect timeout and retries with backoff', () => {
    const { client, clock, network } = makeClient();
    client.connect();
    clock.advance(999);
    expect(client.state.status).toBe('connecting');
    clock.advance(1);
    expect(client.state).toMatchObject({ status: 'disconnected', reason: { kind: 'connect_timeout' }, retryInMs: 100 });
    expect(network.connections[0]!.closedByClient).toBe(true);
    clock.advance(100);
    expect(client.state.status).toBe('connecting');
    expect(network.connections).toHaveLength(2);
  });

  it('owns exactly one transport: the previous one is closed before a retry opens the next', () => {
    const { client, clock, network } = makeClient();
    client.connect();
    network.last().open();
    for (let i = 0; i < 3; i++) {
      network.last().drop();
      expect(network.live()).toHaveLength(0);
      clock.advance(100);
      expect(network.live()).toHaveLength(1);
      network.last().open();
    }
    expect(network.connections).toHaveLength(4);
  });

  it('ignores events from a transport it no longer owns', () => {
    const { client, clock, network } = makeClient();
    client.connect();
    const first = network.last();
    clock.advance(1000); // timeout: first is abandoned
    clock.advance(100); // retry opens a second transport
    first.open(); // late open from the abandoned attempt
    expect(client.state.status).toBe('connecting');
    network.last().open();
    first.drop();
    expect(client.state.status).toBe('connected');
  });

  it('matches replies to requests by req_id and rejects command errors', async () => {
    const { client, network } = makeClient();
    client.connect();
    const c = network.last();
    c.open();
    const listing = client.request({ type: 'list_sessions' });
    const rename = client.request({ type: 'rename_session', session_id: 'x', label: '' });
    const [, list, renameCommand] = c.commands();
    c.text({ type: 'command_error', req_id: renameCommand!.req_id, command: 'rename_session', code: 'invalid_label', message: 'empty', retryable: false });
    c.text({ type: 'session_list', req_id: list!.req_id, sessions: [] });
    await expect(listing).resolves.toMatchObject({ type: 'session_list', sessions: [] });
    const error = await rename.catch((e: RequestError) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).failure).toMatchObject({ kind: 'command_error', error: { code: 'invalid_label' } });
  });

  it('fails in-flight requests when the connection drops', async () => {
    const { client, network } = makeClient();
    client.connect();
    network.last().open();
    const pending = client.request({ type: 'list_sessions' });
    network.last().drop();
    await expect(pending).rejects.toMatchObject({ failure: { kind: 'disconnected', reason: { kind: 'connection_lost' } } });
  });

  it('times out a request nobody answers', async () => {
    const { client, clock, network } = makeClient();
    client.connect();
    network.last().open();
    const pending = client.request({ type: 'list_sessions' });
    clock.advance(2000);
    await expect(pending).rejects.toMatchObject({ failure: { kind: 'timeout' } });
  });

  it('rejects requests at once while not connected', async () => {
    const { client } = makeClient();
    await expect(client.request({ type: 'list_sessions' })).rejects.toMatchObject({ failure: { kind: 'not_connected' } });
    expect(client.send({ type: 'pty_input', session_id: 'a', data: 'x' })).toBe(false);
  });

  it('delivers events and decoded binary frames to listeners', () => {
    const { client, network } = makeClient();
    const events: string[] = [];
    const frames: number[] = [];
    client.onEvent((e) => events.push(e.type));
    client.onFrame((f) => frames.push(f.offset));
    client.connect();
    network.last().open();
    network.last().text({ type: 'sessions_changed', sessions: [] });
    network.last().handlers.onText('garbage');
    network.last().handlers.onBinary(encodeFrame(1, 'abc', 42, new Uint8Array([65])));
    network.last().handlers.onBinary(new Uint8Array([1]));
    expect(events).toEqual(['sessions_changed']);
    expect(frames).toEqual([42]);
  });

  it('once disposed it never connects again, and in-flight requests fail', async () => {
    const { client, clock, network } = makeClient();
    client.connect();
    network.last().open();
    const pending = client.request({ type: 'list_sessions' });
    client.dispose();
    await expect(pending).rejects.toMatchObject({ failure: { kind: 'disconnected', reason: { kind: 'disposed' } } });
    expect(network.last().closedByClient).toBe(true);
    client.connect();
    clock.advance(60_000);
    expect(client.state.status).toBe('disposed');
    expect(network.connections).toHaveLength(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('disposing while disconnected cancels the scheduled retry', () => {
    const { client, clock, network } = makeClient();
    client.connect();
    network.last().drop(1006);
    expect(client.state.status).toBe('disconnected');
    client.dispose();
    clock.advance(60_000);
    expect(network.connections).toHaveLength(1);
  });

  it('connect() while disconnected retries at once instead of waiting for the timer', () => {
    const { client, network } = makeClient();
    client.connect();
    network.last().open();
    network.last().drop();
    client.connect();
    expect(client.state.status).toBe('connecting');
    expect(network.connections).toHaveLength(2);
  });
});
