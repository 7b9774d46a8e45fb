import { describe, expect, it } from 'vitest';
import { E2E, GATE, gateProof, pairing, toHex, type SealedSession } from '../src/client/relay-crypto';
import { relayTransportFactory, relayWebSocketUrl } from '../src/client/relay-transport';
import type { TransportClose } from '../src/client/transport';
import type { WebSocketLike } from '../src/client/websocket-transport';
import { daemonAnswer } from './support/relay-daemon';

const SECRET = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';

class FakeSocket implements WebSocketLike {
  static last: FakeSocket;
  binaryType = 'blob';
  readyState = 0;
  bufferedAmount = 0;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  sent: Uint8Array[] = [];
  closed: [number | undefined, string | undefined] | null = null;
  constructor(readonly url: string, readonly protocols: string[]) {
    FakeSocket.last = this;
  }
  send(data: unknown) {
    this.sent.push(data as Uint8Array);
  }
  close(code?: number, reason?: string) {
    this.closed = [code, reason];
  }
}

const tick = () => new Promise((r) => setTimeout(r, 5));
const URL_ = 'ws://r/h/abcdefghijklmnopqrstuvwxyz/ws';

/** Plays the relay's gate: a challenge, then the proof must come first, the daemon's hello right behind it. */
async function passGate(socket: FakeSocket) {
  socket.readyState = 1;
  socket.onopen!({});
  await tick();
  expect(socket.sent).toEqual([]);
  const challenge = Uint8Array.of(GATE.CHALLENGE, ...crypto.getRandomValues(new Uint8Array(32)));
  socket.onmessage!({ data: challenge.slice().buffer });
  await until(() => socket.sent.length === 2);
  expect(toHex(socket.sent[0]!)).toBe(toHex(await gateProof(await pairing(SECRET), 'abcdefghijklmnopqrstuvwxyz', challenge)));
  socket.sent.shift();
}

async function until(check: () => boolean) {
  for (let i = 0; i < 400 && !check(); i++) await tick();
  expect(check()).toBe(true);
}

function open() {
  const log: string[] = [];
  let closed: TransportClose | null = null;
  const received: (string | Uint8Array)[] = [];
  return {
    log, received, closed: () => closed,
    handlers: {
      onOpen: () => log.push('open'),
      onText: (t: string) => received.push(t),
      onBinary: (b: Uint8Array) => received.push(b),
      onClose: (c: TransportClose) => { closed = c; log.push(`close:${c.code}:${c.reason}`); },
      onError: () => log.push('error'),
    },
  };
}

describe('relay transport', () => {
  it('derives the relay socket address from the page served at /h/<hostId>/', () => {
    expect(relayWebSocketUrl({ protocol: 'https:', host: 'relay.example' }, '/limpet/h/abcdefghijklmnopqrstuvwxyz/'))
      .toBe('wss://relay.example/limpet/h/abcdefghijklmnopqrstuvwxyz/ws');
  });

  it('opens only once the daemon proved the pairing, then carries sealed messages both ways in order', async () => {
    const e = open();
    const t = relayTransportFactory(URL_, await pairing(SECRET), FakeSocket, (n) => new Uint8Array(n))(e.handlers);
    const socket = FakeSocket.last;
    expect(socket.protocols).toEqual([]);
    expect(t.send('too early')).toBe(false);
    await passGate(socket);
    expect(e.log).toEqual([]);
    const daemon = await daemonAnswer(socket.sent[0]!, SECRET);
    socket.onmessage!({ data: daemon.answer.slice().buffer });
    await until(() => e.log.includes('open'));
    for (let i = 0; i < 5; i++) expect(t.send(`{"type":"n","i":${i}}`)).toBe(true);
    expect(t.send(Uint8Array.of(2, 1, 0x61))).toBe(true);
    await until(() => socket.sent.length === 7);
    const session: SealedSession = daemon.session;
    for (let i = 0; i < 5; i++) {
      const m = await session.open(socket.sent[i + 1]!);
      expect(new TextDecoder().decode(m.plaintext)).toBe(`{"type":"n","i":${i}}`);
    }
    expect(Array.from((await session.open(socket.sent[6]!)).plaintext)).toEqual([2, 1, 0x61]);
    socket.onmessage!({ data: (await session.seal(E2E.TEXT, new TextEncoder().encode('{"type":"initial_state"}'))).slice().buffer });
    socket.onmessage!({ data: (await session.seal(E2E.BINARY, Uint8Array.of(9))).slice().buffer });
    await until(() => e.received.length === 2);
    expect(e.received[0]).toBe('{"type":"initial_state"}');
    expect(Array.from(e.received[1] as Uint8Array)).toEqual([9]);
  });

  it('a refused pairing closes with 1008 pairing_invalid (not retried by the connection machine)', async () => {
    const e = open();
    relayTransportFactory(URL_, await pairing(SECRET), FakeSocket, (n) => new Uint8Array(n))(e.handlers);
    const socket = FakeSocket.last;
    await passGate(socket);
    socket.onmessage!({ data: Uint8Array.of(E2E.REFUSED, ...new TextEncoder().encode('pairing_invalid')).buffer });
    await until(() => e.closed() !== null);
    expect(e.closed()).toEqual({ code: 1008, reason: 'pairing_invalid', wasOpen: false });
  });

  it('a tampered message closes with e2e_failed and nothing of it is delivered', async () => {
    const e = open();
    relayTransportFactory(URL_, await pairing(SECRET), FakeSocket, (n) => new Uint8Array(n))(e.handlers);
    const socket = FakeSocket.last;
    await passGate(socket);
    const daemon = await daemonAnswer(socket.sent[0]!, SECRET);
    socket.onmessage!({ data: daemon.answer.slice().buffer });
    await until(() => e.log.includes('open'));
    const m = await daemon.session.seal(E2E.TEXT, new TextEncoder().encode('{"type":"x"}'));
    m[m.length - 1]! ^= 1;
    socket.onmessage!({ data: m.slice().buffer });
    await until(() => e.closed() !== null);
    expect(e.closed()!.reason).toBe('e2e_failed');
    expect(e.received).toEqual([]);
  });
});
