import { describe, expect, it, vi } from 'vitest';
import type { Clock, TimerHandle } from '../src/core/clock';
import { CLOSE_GRACE_MS, workerWebSocket, type WorkerLike } from '../src/client/worker-websocket';
import type { FromSocketWorker, ToSocketWorker } from '../src/client/socket-worker-protocol';
import { webSocketTransportFactory } from '../src/client/websocket-transport';

class FakeWorker implements WorkerLike {
  static last: FakeWorker;
  onmessage: ((event: { data: FromSocketWorker }) => void) | null = null;
  onerror: ((event: { message?: string }) => void) | null = null;
  received: ToSocketWorker[] = [];
  terminated = false;
  constructor(readonly script: string | URL) {
    FakeWorker.last = this;
  }
  postMessage(message: ToSocketWorker) { this.received.push(message); }
  terminate() { this.terminated = true; }
  say(message: FromSocketWorker) { this.onmessage!({ data: message }); }
}

class ManualClock implements Clock {
  private timers = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  t = 0;
  now() { return this.t; }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.next++;
    this.timers.set(id, { at: this.t + ms, fn });
    return { id };
  }
  clearTimeout(h: TimerHandle | null | undefined) { if (h) this.timers.delete(h.id); }
  advance(ms: number) {
    this.t += ms;
    for (const [id, timer] of [...this.timers]) if (timer.at <= this.t) { this.timers.delete(id); timer.fn(); }
  }
}

function connect(clock = new ManualClock()) {
  const log: string[] = [];
  const Impl = workerWebSocket('/socket-worker.js', FakeWorker, clock);
  const transport = webSocketTransportFactory('ws://127.0.0.1:7420/ws', 'abc123', Impl)({
    onOpen: () => log.push('open'), onText: (t) => log.push(`text:${t}`), onBinary: (b) => log.push(`bin:${b.length}`),
    onClose: (c) => log.push(`close:${c.code}:${c.reason}:${c.wasOpen}`), onError: () => log.push('error'),
    onBatch: (open) => log.push(`batch:${open}`),
  });
  return { log, transport, worker: FakeWorker.last, clock };
}

describe('a WebSocket held by a worker', () => {
  it('opens the socket in the worker with the token subprotocol, and sends only once it is open', () => {
    const { log, transport, worker } = connect();
    expect(worker.script).toBe('/socket-worker.js');
    expect(worker.received).toEqual([{ type: 'open', url: 'ws://127.0.0.1:7420/ws', protocols: ['limpet.v1', 'limpet.token.abc123'] }]);
    expect(transport.send('early')).toBe(false);
    worker.say({ type: 'open', protocol: 'limpet.v1', extensions: 'permessage-deflate' });
    expect(log).toEqual(['open']);
    expect(transport.send('hello')).toBe(true);
    transport.send(new Uint8Array([1, 2, 3]));
    expect(worker.received.slice(1)).toEqual([{ type: 'send', data: 'hello' }, { type: 'send', data: new Uint8Array([1, 2, 3]) }]);
  });

  it('hands a batch on as one message each, in order, between the batch\'s start and end, then tells the worker it was taken', () => {
    const { log, worker } = connect();
    worker.say({ type: 'open', protocol: 'limpet.v1', extensions: '' });
    worker.say({ type: 'batch', messages: ['{"type":"a"}', new ArrayBuffer(5), '{"type":"b"}'], bufferedAmount: 0 });
    expect(log).toEqual(['open', 'batch:true', 'text:{"type":"a"}', 'bin:5', 'text:{"type":"b"}', 'batch:false']);
    expect(worker.received.at(-1)).toEqual({ type: 'taken' });
  });

  it('tells the worker a batch was taken even when a handler throws, so nothing stays held', () => {
    const Impl = workerWebSocket('/socket-worker.js', FakeWorker, new ManualClock());
    const socket = new Impl('ws://h/ws', []);
    const worker = FakeWorker.last;
    worker.say({ type: 'open', protocol: '', extensions: '' });
    socket.onmessage = () => {
      throw new Error('a bug');
    };
    expect(() => worker.say({ type: 'batch', messages: ['x'], bufferedAmount: 0 })).toThrow('a bug');
    expect(worker.received.at(-1)).toEqual({ type: 'taken' });
  });

  it('reports the close the worker reports, once, and ends the worker', () => {
    const { log, worker } = connect();
    worker.say({ type: 'open', protocol: 'limpet.v1', extensions: '' });
    worker.say({ type: 'error' });
    worker.say({ type: 'close', code: 1006, reason: 'gone' });
    worker.say({ type: 'close', code: 1000, reason: 'again' });
    expect(log).toEqual(['open', 'close:1006:gone:true']);
    expect(worker.terminated).toBe(true);
  });

  it('closes with code 1006 and says why when the worker cannot start', () => {
    const console = vi.spyOn(globalThis.console, 'error').mockImplementation(() => undefined);
    const { log, worker } = connect();
    worker.onerror!({ message: 'NetworkError' });
    expect(log).toEqual(['close:1006:the socket worker failed: NetworkError:false']);
    expect(console).toHaveBeenCalledWith('limpet: the socket worker failed: NetworkError (/socket-worker.js)');
    console.mockRestore();
    expect(worker.terminated).toBe(true);
  });

  it('closes through the worker, and ends a worker that never reports the close after a grace period', () => {
    const { log, transport, worker, clock } = connect();
    worker.say({ type: 'open', protocol: 'limpet.v1', extensions: '' });
    transport.close();
    expect(worker.received.at(-1)).toEqual({ type: 'close', code: 1000, reason: 'client closed' });
    clock.advance(CLOSE_GRACE_MS - 1);
    expect(worker.terminated).toBe(false);
    clock.advance(1);
    expect(worker.terminated).toBe(true);
    expect(log).toEqual(['open']); // the transport reports nothing after its own close()
  });
});
