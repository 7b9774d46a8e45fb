// A real nats-server (Debian's `nats-server` package) on loopback with JetStream on a temporary
// store: kill -9 it and start it again on the same port and store (relay nodes know its URL).
// A missing binary fails with the remedy; it never skips.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const natsServerPath = () => process.env.LIMPET_NATS_SERVER ?? '/usr/sbin/nats-server';

/** A free TCP port on loopback (the server comes back on the same one). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const accepts = (port) => new Promise((resolve) => {
  const socket = createConnection({ host: '127.0.0.1', port });
  socket.once('connect', () => { socket.destroy(); resolve(true); });
  socket.once('error', () => resolve(false));
});

export class NatsServer {
  constructor() {
    if (!existsSync(natsServerPath())) {
      throw new Error(`nats-server not found at ${natsServerPath()}: install the Debian package \`nats-server\` (apt-get install nats-server) or set LIMPET_NATS_SERVER`);
    }
    this.dir = mkdtempSync(join(tmpdir(), 'limpet-e2e-nats-'));
    this.port = 0;
    this.process = null;
    this.output = '';
  }

  get url() {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts (on the previous port and store when restarting) and waits until it accepts connections. */
  async start(timeoutMs = 15_000) {
    if (this.port === 0) this.port = await freePort();
    const child = spawn(natsServerPath(), ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', join(this.dir, 'store')],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    this.process = child;
    const onData = (chunk) => { this.output += chunk.toString(); };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) break;
      if (/Server is ready/.test(this.output) && await accepts(this.port)) return this;
      await new Promise((r) => setTimeout(r, 50));
    }
    await this.kill9();
    throw new Error(`nats-server did not start on port ${this.port} in ${timeoutMs} ms:\n${this.output.slice(-4000)}`);
  }

  /** kill -9: no goodbye to its clients. */
  async kill9() {
    const child = this.process;
    if (!child) return;
    this.process = null;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async cleanup() {
    await this.kill9();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
