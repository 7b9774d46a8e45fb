// A TCP proxy between the browser and the daemon, so a test can cut every live connection (and
// refuse new ones) without touching the daemon or the browser.
import net from 'node:net';

export class TcpProxy {
  constructor(targetPort) {
    this.targetPort = targetPort;
    this.sockets = new Set();
    this.cut = false;
    this.server = net.createServer((client) => {
      if (this.cut) return client.destroy();
      const upstream = net.connect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  listen() {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', () => {
      this.port = this.server.address().port;
      resolve(this);
    }));
  }

  /** Drops every connection and refuses new ones until restore(). */
  cutAll() {
    this.cut = true;
    for (const s of this.sockets) s.destroy();
  }

  restore() {
    this.cut = false;
  }

  close() {
    this.cutAll();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
