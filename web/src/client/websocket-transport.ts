// The browser WebSocket transport. The token travels as the `limpet.token.<token>` subprotocol so
// it never appears in a URL, a log line or the Referer.
import type { Transport, TransportFactory, TransportHandlers } from './transport';

export const SUBPROTOCOL = 'limpet.v1';

/** The part of the WebSocket API this transport needs; tests pass a fake class. */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  readonly bufferedAmount: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  /** Not the browser's WebSocket: a socket that hands messages over in batches (worker-websocket.ts) calls it around each. */
  onbatch?: ((open: boolean) => void) | null;
  send(data: string | ArrayBufferLike | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketConstructor = new (url: string, protocols: string[]) => WebSocketLike;

const OPEN = 1;

/** `ws://host/ws` (or `wss:` under https) for the page's own origin. */
export function webSocketUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
}

export function webSocketTransportFactory(url: string, token: string, Impl: WebSocketConstructor): TransportFactory {
  return (handlers: TransportHandlers): Transport => {
    const socket = new Impl(url, [SUBPROTOCOL, `limpet.token.${token}`]);
    socket.binaryType = 'arraybuffer';
    let opened = false;
    let closed = false;
    socket.onopen = () => {
      if (closed) return;
      opened = true;
      handlers.onOpen();
    };
    socket.onmessage = (event) => {
      if (closed) return;
      const data = event.data;
      if (typeof data === 'string') handlers.onText(data);
      else if (data instanceof ArrayBuffer) handlers.onBinary(new Uint8Array(data));
      else if (ArrayBuffer.isView(data)) handlers.onBinary(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    };
    // Browsers follow every WebSocket error with a close event that carries the code, so the
    // close is what gets reported; onError is for transports whose errors stand alone.
    socket.onerror = () => {};
    socket.onbatch = (open) => {
      if (!closed) handlers.onBatch?.(open);
    };
    socket.onclose = (event) => {
      if (closed) return;
      closed = true;
      handlers.onClose({ code: event.code, reason: event.reason, wasOpen: opened });
    };
    return {
      send(data) {
        if (closed || socket.readyState !== OPEN) return false;
        socket.send(data);
        return true;
      },
      close() {
        if (closed) return;
        closed = true;
        socket.onopen = socket.onmessage = socket.onerror = socket.onclose = socket.onbatch = null;
        try {
          socket.close(1000, 'client closed');
        } catch {
          // closing a socket that never connected may throw in some browsers; nothing to do
        }
      },
      bufferedAmount: () => socket.bufferedAmount,
    };
  };
}
