// A real `limpet relay` from the built jar on a temporary directory: enrol a host, kill -9 it and
// start it again on the same port (daemons and pages know its address). With `nats` it is a node of
// a cluster (`--nats URL`); cluster nodes share one relay directory (`dir` of the first node).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JVM_FLAGS, javaBinary, limpetJar } from './paths.mjs';

const LISTENING = /limpet relay listening on (http:\/\/[^\s/]+)\//;

export class Relay {
  /** `dir`: another node's directory to share (that node removes it); `nats`: a NATS URL to join a cluster. */
  constructor({ dir = null, nats = null } = {}) {
    this.ownsDir = dir === null;
    this.dir = dir ?? mkdtempSync(join(tmpdir(), 'limpet-e2e-relay-'));
    this.nats = nats;
    this.port = 0;
    this.process = null;
    this.output = '';
  }

  async start(timeoutMs = 120_000) {
    const args = [...JVM_FLAGS, '-jar', limpetJar(), 'relay', '--port', String(this.port), '--relay-dir', join(this.dir, 'relay'),
      ...(this.nats ? ['--nats', this.nats, '--insecure-nats'] : [])];
    const child = spawn(javaBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.process = child;
    const found = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`relay did not start in ${timeoutMs} ms:\n${this.output}`)), timeoutMs);
      const onData = (chunk) => {
        this.output += chunk.toString();
        const match = LISTENING.exec(this.output);
        if (match) {
          clearTimeout(timer);
          resolve(match);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`relay exited (${code}):\n${this.output}`));
      });
    });
    child.removeAllListeners('exit');
    this.origin = found[1];
    this.port = Number(new URL(this.origin).port);
    return this;
  }

  /** GET /healthz: its status code and JSON body (null when the node does not answer). */
  async health() {
    try {
      const response = await fetch(`${this.origin}/healthz`, { signal: AbortSignal.timeout(5_000) });
      return { status: response.status, body: await response.json().catch(() => null) };
    } catch {
      return null;
    }
  }

  /** Waits (bounded) until /healthz answers with `status`. */
  async awaitHealth(status, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    let last = null;
    while (Date.now() < deadline) {
      last = await this.health();
      if (last?.status === status) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`relay ${this.origin}: /healthz never answered ${status} in ${timeoutMs} ms; last: ${JSON.stringify(last)}\n${this.output.slice(-4000)}`);
  }

  /** Enrols a host and writes its credential into a daemon's data root (0600). */
  enrol(dataRoot) {
    const file = join(dataRoot, 'relay-credential');
    writeFileSync(file, this.addHost() + '\n', { mode: 0o600 });
    chmodSync(file, 0o600);
  }

  /** `limpet relay add-host`: a new host's `hostId.credential` (enrolled, but no daemon holds it). */
  addHost() {
    const r = spawnSync(javaBinary(), [...JVM_FLAGS, '-jar', limpetJar(), 'relay', 'add-host', '--relay-dir', join(this.dir, 'relay')], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`relay add-host failed: ${r.stderr}`);
    return r.stdout.trim();
  }

  async kill9() {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.process = null;
  }

  async cleanup() {
    await this.kill9();
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `limpet pair` on the daemon's data root: the link it prints. */
export function pairingLink(dataRoot) {
  const r = spawnSync(javaBinary(), [...JVM_FLAGS, '-jar', limpetJar(), 'pair', '--data-root', dataRoot, '--label', 'e2e'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`limpet pair failed: ${r.stderr}`);
  return r.stdout.split('\n')[0].trim();
}
