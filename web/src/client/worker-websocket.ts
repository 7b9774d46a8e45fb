// A WebSocket whose socket lives in a dedicated worker (socket-worker-protocol.ts says why), behind
// the part of the WebSocket API the transports use: websocket-transport.ts and relay-transport.ts
// take it where they would take the browser's WebSocket. A batch from the worker is dispatched as
// one message event per message, in order, in one task, between `onbatch(true)` and
// `onbatch(false)`; the worker hears `taken` after it.
//
// The worker is the page's own (same origin, dedicated: no other page can talk to it). It ends
// with the socket: when the worker reports the close, or a grace period after close() if it never
// does. A worker that cannot start (its script missing or refused) is a close with code 1006, as a
// socket that cannot connect is, and the console says why.
import { systemClock, type Clock, type TimerHandle } from '../core/clock';
import type { WebSocketConstructor, WebSocketLike } from './websocket-transport';
import type { FromSocketWorker, ToSocketWorker } from './socket-worker-protocol';

/** The part of the Worker API used here; tests pass a fake class. */
export interface WorkerLike {
  onmessage: ((event: { data: FromSocketWorker }) => void) | null;
  onerror: ((event: { message?: string }) => void) | null;
  postMessage(message: ToSocketWorker): void;
  terminate(): void;
}

export type WorkerConstructor = new (url: string | URL, options?: { name?: string }) => WorkerLike;

/** How long a closed socket's worker may take to report the close before it is ended anyway. */
export const CLOSE_GRACE_MS = 5_000;

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/** The WebSocket constructor for sockets in workers started from `script` (the worker bundle's URL). */
export function workerWebSocket(script: string | URL, Impl: WorkerConstructor, clock: Clock = systemClock): WebSocketConstructor {
  return class WorkerWebSocket implements WebSocketLike {
    binaryType = 'arraybuffer';
    readyState = CONNECTING;
    bufferedAmount = 0;
    /** What the server agreed to (WebSocket.extensions), once open. */
    extensions = '';
    protocol = '';
    onopen: ((event: unknown) => void) | null = null;
    onmessage: ((event: { data: unknown }) => void) | null = null;
    onclose: ((event: { code: number; reason: string }) => void) | null = null;
    onerror: ((event: unknown) => void) | null = null;
    onbatch: ((open: boolean) => void) | null = null;
    private readonly worker: WorkerLike;
    private graceTimer: TimerHandle | null = null;

    constructor(url: string, protocols: string[]) {
      this.worker = new Impl(script, { name: 'limpet socket' });
      this.worker.onmessage = ({ data }) => this.fromWorker(data);
      this.worker.onerror = (event) => {
        if (this.readyState === CLOSED) return;
        const reason = `the socket worker failed: ${event.message ?? 'it did not start'}`;
        console.error(`limpet: ${reason} (${String(script)})`);
        this.onerror?.(event);
        this.closed(1006, reason);
      };
      this.worker.postMessage({ type: 'open', url, protocols });
    }

    send(data: string | ArrayBufferLike | ArrayBufferView): void {
      if (this.readyState !== OPEN) throw new DOMException('the socket is not open', 'InvalidStateError');
      // Bytes of their own: the message takes a copy of them, and the caller's buffer stays the caller's.
      const bytes = typeof data === 'string' ? data
        : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice() : new Uint8Array(data).slice();
      this.worker.postMessage({ type: 'send', data: bytes });
    }

    close(code = 1000, reason = ''): void {
      if (this.readyState >= CLOSING) return;
      this.readyState = CLOSING;
      this.worker.postMessage({ type: 'close', code, reason });
      this.graceTimer = clock.setTimeout(() => this.closed(1006, 'the socket worker did not report the close'), CLOSE_GRACE_MS);
    }

    private fromWorker(message: FromSocketWorker): void {
      switch (message.type) {
        case 'open':
          if (this.readyState !== CONNECTING) return;
          this.readyState = OPEN;
          this.protocol = message.protocol;
          this.extensions = message.extensions;
          this.onopen?.({});
          return;
        case 'batch':
          this.bufferedAmount = message.bufferedAmount;
          this.onbatch?.(true);
          try {
            for (const data of message.messages) {
              if (this.readyState === CLOSED) return;
              this.onmessage?.({ data });
            }
          } finally {
            // Even after a handler threw: a worker that never hears `taken` holds everything after.
            this.onbatch?.(false);
            if (this.readyState !== CLOSED) this.worker.postMessage({ type: 'taken' });
          }
          return;
        case 'error':
          this.onerror?.({});
          return;
        case 'close':
          this.closed(message.code, message.reason);
          return;
      }
    }

    private closed(code: number, reason: string): void {
      if (this.readyState === CLOSED) return;
      this.readyState = CLOSED;
      clock.clearTimeout(this.graceTimer);
      this.worker.terminate();
      this.onclose?.({ code, reason });
    }
  };
}
