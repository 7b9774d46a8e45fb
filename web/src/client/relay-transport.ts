// The browser's transport through a relay: a WebSocket to the relay's /h/<hostId>/ws that carries
// the end-to-end handshake first, then every protocol message sealed. onOpen is reported only once
// the daemon proved it holds the pairing's secret, so DaemonClient, HostRuntime and the workspace
// see exactly the protocol of a direct connection. A refused pairing or a message that does not
// authenticate closes it with 1008 and the code as reason (`pairing_invalid`, `e2e_failed`), which
// the connection machine treats as not retryable.
import type { Transport, TransportFactory, TransportHandlers } from './transport';
import type { WebSocketConstructor } from './websocket-transport';
import { ClientHandshake, E2E, E2eError, gateProof, type Pairing, type SealedSession } from './relay-crypto';

const OPEN = 1;

/** `ws(s)://relay[/prefix]/h/<hostId>/ws` for a page served at `/h/<hostId>/` by the relay. */
export function relayWebSocketUrl(location: { protocol: string; host: string }, hostPath: string): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${hostPath.replace(/\/+$/, '')}/ws`;
}

export function relayTransportFactory(url: string, pair: Pairing, Impl: WebSocketConstructor,
  random: (n: number) => Uint8Array): TransportFactory {
  const hostId = /\/h\/([a-z2-7]{26})\/ws$/.exec(url)?.[1] ?? '';
  return (handlers: TransportHandlers): Transport => {
    const socket = new Impl(url, []);
    socket.binaryType = 'arraybuffer';
    let closed = false;
    let opened = false;
    let handshake: ClientHandshake | null = null;
    let session: SealedSession | null = null;
    // Sealing and opening are asynchronous: chains keep the wire order in both directions.
    let inbound: Promise<unknown> = Promise.resolve();
    let outbound: Promise<unknown> = Promise.resolve();

    const finish = (code: number, reason: string) => {
      if (closed) return;
      closed = true;
      socket.onopen = socket.onmessage = socket.onerror = socket.onclose = null;
      try {
        socket.close(code === 1006 ? 1000 : code, reason);
      } catch {
        // already closing
      }
      handlers.onClose({ code, reason, wasOpen: opened });
    };

    // The relay speaks first: its gate's challenge, answered before the daemon is greeted.
    socket.onopen = () => {};
    socket.onmessage = (event) => {
      const data = event.data;
      if (typeof data === 'string') {
        finish(1008, 'e2e_failed');
        return;
      }
      const bytes = data instanceof ArrayBuffer ? new Uint8Array(data)
        : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(0);
      inbound = inbound.then(async () => {
        if (closed) return;
        if (!handshake) {
          const proof = await gateProof(pair, hostId, bytes);
          handshake = await ClientHandshake.start(pair, random);
          if (closed) return;
          socket.send(proof);
          socket.send(handshake.hello);
          return;
        }
        if (!session) {
          session = await handshake.accept(bytes);
          if (closed) return;
          opened = true;
          handlers.onOpen();
          return;
        }
        const m = await session.open(bytes);
        if (closed) return;
        if (m.type === E2E.TEXT) handlers.onText(new TextDecoder().decode(m.plaintext));
        else handlers.onBinary(m.plaintext);
      }).catch((e: unknown) => finish(1008, e instanceof E2eError ? e.code : 'e2e_failed'));
    };
    socket.onerror = () => {};
    socket.onclose = (event) => finish(event.code, event.reason);

    return {
      send(data) {
        const s = session;
        if (closed || !s || socket.readyState !== OPEN) return false;
        const plain = typeof data === 'string' ? new TextEncoder().encode(data) : data;
        const sealing = s.seal(typeof data === 'string' ? E2E.TEXT : E2E.BINARY, plain);
        outbound = outbound.then(() => sealing).then((sealed) => {
          if (!closed && socket.readyState === OPEN) socket.send(sealed);
        }, () => finish(1008, 'e2e_failed'));
        return true;
      },
      close() {
        if (closed) return;
        closed = true;
        socket.onopen = socket.onmessage = socket.onerror = socket.onclose = null;
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
