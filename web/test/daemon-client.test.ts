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

  it('merges contiguous output of one session within a batch into one frame when the batch ends, in the daemon\'s order', () => {
    const { client, network } = makeClient();
    const seen: string[] = [];
    client.onEvent((e) => seen.push(`event:${e.type}`));
    client.onFrame((f) => seen.push(`${f.kind}:${f.sessionId}:${f.offset}:${new TextDecoder().decode(f.payload)}`));
    client.connect();
    network.last().open();
    const handlers = network.last().handlers;
    const out = (id: string, end: number, text: string) => handlers.onBinary(encodeFrame(1, id, end, new TextEncoder().encode(text)));
    out('a', 1, 'z');
    expect(seen).toEqual(['1:a:1:z']); // outside a batch: at once
    seen.length = 0;
    handlers.onBatch!(true);
    out('a', 4, 'abc');
    out('a', 6, 'de');
    out('a', 7, 'f');
    expect(seen).toEqual([]); // held while the batch lasts
    out('b', 2, 'xy'); // another session: a's merged output goes first
    out('b', 9, 'zz'); // not contiguous (a gap): not merged
    network.last().text({ type: 'sessions_changed', sessions: [] }); // an event: the output before it goes first
    handlers.onBinary(encodeFrame(3, 'a', 7, new TextEncoder().encode('S'))); // a snapshot is never merged
    out('a', 9, 'gh');
    expect(seen).toHaveLength(5);
    handlers.onBatch!(false);
    expect(seen).toEqual(['1:a:7:abcdef', '1:b:2:xy', '1:b:9:zz', 'event:sessions_changed', '3:a:7:S', '1:a:9:gh']);
  });

  it('hands held output over before it reports the close', () => {
    const { client, network } = makeClient();
    const seen: string[] = [];
    client.onFrame((f) => seen.push(`frame:${f.offset}`));
    client.onState((s) => seen.push(`state:${s.status}`));
    client.connect();
    network.last().open();
    network.last().handlers.onBatch!(true);
    network.last().handlers.onBinary(encodeFrame(1, 'a', 3, new TextEncoder().encode('abc')));
    network.last().handlers.onClose({ code: 1006, reason: '', wasOpen: true });
    const closedAt = seen.lastIndexOf(`state:${client.state.status}`);
    expect(client.state.status).not.toBe('connected');
    expect(seen.slice(closedAt - 1, closedAt + 1)).toEqual(['frame:3', `state:${client.state.status}`]);
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
