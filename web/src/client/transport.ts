// A transport owns exactly one physical connection (one connection attempt). It reports what
// happened and nothing else; timeouts, retries and typing of reasons belong to DaemonClient.

export interface TransportClose {
  code: number;
  reason: string;
  /** true when the connection had opened before it closed. */
  wasOpen: boolean;
}

export interface TransportHandlers {
  onOpen(): void;
  onText(text: string): void;
  onBinary(bytes: Uint8Array): void;
  onClose(close: TransportClose): void;
  onError(): void;
  /**
   * A transport that hands messages over in batches says when one starts (true) and ends (false);
   * the messages between came together. Optional: a transport that does not batch never calls it.
   */
  onBatch?(open: boolean): void;
}

export interface Transport {
  /** Returns false when the connection is not open (the data was not sent). */
  send(data: string | Uint8Array): boolean;
  /** Closes the connection; no handler is called after close() returns. */
  close(): void;
  /** Bytes queued by the connection but not yet sent (WebSocket.bufferedAmount). */
  bufferedAmount(): number;
}

export type TransportFactory = (handlers: TransportHandlers) => Transport;
