// The dedicated worker that holds one of the page's WebSockets (client/worker-websocket.ts is its
// page side; client/socket-worker-protocol.ts says why it exists and how messages are batched).
// One worker per connection attempt: it opens the socket it is told to, passes on what the page
// sends, and ends with the socket.
import { SocketBatcher, type FromSocketWorker, type SocketMessage, type ToSocketWorker } from './client/socket-worker-protocol';

interface WorkerScope {
  onmessage: ((event: { data: ToSocketWorker }) => void) | null;
  postMessage(message: FromSocketWorker, transfer?: Transferable[]): void;
}

const scope = self as unknown as WorkerScope;
let socket: WebSocket | null = null;

const post = (message: FromSocketWorker, transfer: Transferable[] = []) => scope.postMessage(message, transfer);
const batcher = new SocketBatcher((messages: SocketMessage[]) => post(
  { type: 'batch', messages, bufferedAmount: socket?.bufferedAmount ?? 0 },
  messages.filter((m): m is ArrayBuffer => typeof m !== 'string'),
));

scope.onmessage = ({ data: command }) => {
  switch (command.type) {
    case 'open': {
      if (socket) return;
      let s: WebSocket;
      try {
        s = new WebSocket(command.url, command.protocols);
      } catch (error) {
        post({ type: 'error' });
        post({ type: 'close', code: 1006, reason: `cannot open the socket: ${String(error)}` });
        return;
      }
      socket = s;
      s.binaryType = 'arraybuffer';
      s.onopen = () => post({ type: 'open', protocol: s.protocol, extensions: s.extensions });
      s.onmessage = (event) => batcher.received(event.data as SocketMessage);
      s.onerror = () => post({ type: 'error' });
      s.onclose = (event) => {
        batcher.drain();
        post({ type: 'close', code: event.code, reason: event.reason });
      };
      return;
    }
    case 'send':
      socket?.send(command.data);
      return;
    case 'close':
      try {
        socket?.close(command.code, command.reason);
      } catch {
        socket?.close(); // a code or reason the browser refuses: close all the same
      }
      return;
    case 'taken':
      batcher.taken();
      return;
  }
};
