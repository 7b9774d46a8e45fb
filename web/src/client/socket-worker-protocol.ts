// The page's WebSocket lives in a dedicated worker (socket-worker.ts), so the browser keeps reading
// the network while the page's thread parses and draws: on the page's thread each message waited
// for the one before it to be handled, and a flood arrived no faster than the page could draw it
// (docs/benchmarks.md). These are the messages between the two, and the worker's batching.
//
// Batching (pull): the worker posts what it received at once when the page has taken the last
// batch, else holds it; when the page has handled a batch it says `taken`, and everything received
// meanwhile goes as the next batch. A busy page gets one task per batch, not one per message, and
// a quiet one (a key's echo) gets each message as soon as it arrives.

/** Page → worker. */
export type ToSocketWorker =
  | { type: 'open'; url: string; protocols: string[] }
  | { type: 'send'; data: string | Uint8Array<ArrayBuffer> }
  | { type: 'close'; code: number; reason: string }
  | { type: 'taken' };

/** A message as the socket received it: text, or binary as an ArrayBuffer (moved, not copied). */
export type SocketMessage = string | ArrayBuffer;

/** Worker → page. */
export type FromSocketWorker =
  | { type: 'open'; protocol: string; extensions: string }
  | { type: 'batch'; messages: SocketMessage[]; bufferedAmount: number }
  | { type: 'error' }
  | { type: 'close'; code: number; reason: string };

/** The worker's side of the batching. Pure: `post` carries a batch to the page. */
export class SocketBatcher {
  private held: SocketMessage[] = [];
  private pageHasBatch = false;

  constructor(private readonly post: (messages: SocketMessage[]) => void) {}

  /** A message arrived from the network. */
  received(message: SocketMessage): void {
    this.held.push(message);
    this.flush();
  }

  /** The page handled the last batch. */
  taken(): void {
    this.pageHasBatch = false;
    this.flush();
  }

  /** Messages waiting for the page to take its batch. */
  get waiting(): number {
    return this.held.length;
  }

  /** Whatever is held goes now, taken or not (the socket closed: nothing may stay behind). */
  drain(): void {
    this.pageHasBatch = false;
    this.flush();
  }

  private flush(): void {
    if (this.pageHasBatch || this.held.length === 0) return;
    const batch = this.held;
    this.held = [];
    this.pageHasBatch = true;
    this.post(batch);
  }
}
