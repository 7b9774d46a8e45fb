import { describe, expect, it } from 'vitest';
import { webSocketTransportFactory, webSocketUrl, type WebSocketLike } from '../src/client/websocket-transport';

class FakeSocket implements WebSocketLike {
  static last: FakeSocket;
  binaryType = 'blob';
  readyState = 0;
  bufferedAmount = 0;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  sent: unknown[] = [];
  closed = false;
  constructor(readonly url: string, readonly protocols: string[]) {
    FakeSocket.last = this;
  }
  send(data: unknown) { this.sent.push(data); }
  close() { this.closed = true; }
}

describe('WebSocket transport', () => {
  it('authenticates with the token subprotocol, never in the URL', () => {
    const log: string[] = [];
    const transport = webSocketTransportFactory('ws://127.0.0.1:7420/ws', 'abc123', FakeSocket)({
      onOpen: () => log.push('open'), onText: (t) => log.push(`text:${t}`), onBinary: (b) => log.push(`bin:${b.length}`),
      onClose: (c) => log.push(`close:${c.code}:${c.wasOpen}`), onError: () => log.push('error'),
    });
    const socket = FakeSocket.last;
    expect(socket.url).toBe('ws://127.0.0.1:7420/ws');
    expect(socket.protocols).toEqual(['limpet.v1', 'limpet.token.abc123']);
    expect(socket.binaryType).toBe('arraybuffer');
    expect(transport.send('x')).toBe(false);
    socket.readyState = 1;
    socket.onopen!({});
    expect(transport.send('hello')).toBe(true);
    socket.onmessage!({ data: '{"type":"ack"}' });
    socket.onmessage!({ data: new ArrayBuffer(3) });
    socket.onerror!({});
    socket.onclose!({ code: 1006, reason: '' });
    expect(log).toEqual(['open', 'text:{"type":"ack"}', 'bin:3', 'close:1006:true']);
  });

  it('reports nothing after the client closes it', () => {
    const log: string[] = [];
    const transport = webSocketTransportFactory('ws://h/ws', 't', FakeSocket)({
      onOpen: () => log.push('open'), onText: () => log.push('text'), onBinary: () => log.push('bin'),
      onClose: () => log.push('close'), onError: () => log.push('error'),
    });
    const socket = FakeSocket.last;
    transport.close();
    expect(socket.closed).toBe(true);
    expect(socket.onopen).toBeNull();
    expect(transport.send('x')).toBe(false);
  });

  it('derives the socket URL from the page location', () => {
    expect(webSocketUrl({ protocol: 'http:', host: '127.0.0.1:7420' })).toBe('ws://127.0.0.1:7420/ws');
    expect(webSocketUrl({ protocol: 'https:', host: 'relay.example:443' })).toBe('wss://relay.example:443/ws');
  });
});
