import type { Transport, TransportFactory, TransportHandlers } from '../../src/client/transport';

/** One fake connection: the test plays the daemon through open/text/binary/close. */
export class FakeConnection implements Transport {
  readonly sent: (string | Uint8Array)[] = [];
  closedByClient = false;
  isOpen = false;

  constructor(readonly handlers: TransportHandlers) {}

  send(data: string | Uint8Array): boolean {
    if (!this.isOpen || this.closedByClient) return false;
    this.sent.push(data);
    return true;
  }

  close(): void {
    this.closedByClient = true;
    this.isOpen = false;
  }

  bufferedAmount(): number {
    return 0;
  }

  open(): void {
    this.isOpen = true;
    this.handlers.onOpen();
  }

  text(message: object): void {
    this.handlers.onText(JSON.stringify(message));
  }

  drop(code = 1006, reason = ''): void {
    const wasOpen = this.isOpen;
    this.isOpen = false;
    this.handlers.onClose({ code, reason, wasOpen });
  }

  /** Parsed JSON commands sent by the client. */
  commands(): Record<string, unknown>[] {
    return this.sent.filter((d): d is string => typeof d === 'string').map((d) => JSON.parse(d));
  }
}

export class FakeNetwork {
  readonly connections: FakeConnection[] = [];

  readonly factory: TransportFactory = (handlers) => {
    const connection = new FakeConnection(handlers);
    this.connections.push(connection);
    return connection;
  };

  last(): FakeConnection {
    const connection = this.connections[this.connections.length - 1];
    if (!connection) throw new Error('no connection was made');
    return connection;
  }

  /** Connections the client has not closed. */
  live(): FakeConnection[] {
    return this.connections.filter((c) => !c.closedByClient);
  }
}
