// A real `limpet relay` from the built jar on a temporary directory: enrol a host, kill -9 it and
// start it again on the same port (daemons and pages know its address).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { javaBinary, limpetJar } from './paths.mjs';

const LISTENING = /limpet relay listening on (http:\/\/[^\s/]+)\//;

export class Relay {
  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'limpet-e2e-relay-'));
    this.port = 0;
    this.process = null;
    this.output = '';
  }

  async start(timeoutMs = 30_000) {
    const child = spawn(javaBinary(), ['-jar', limpetJar(), 'relay', '--port', String(this.port), '--relay-dir', join(this.dir, 'relay')],
      { stdio: ['ignore', 'pipe', 'pipe'] });
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

  /** Enrols a host and writes its credential into a daemon's data root (0600). */
  enrol(dataRoot) {
    const r = spawnSync(javaBinary(), ['-jar', limpetJar(), 'relay', 'add-host', '--relay-dir', join(this.dir, 'relay')], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`relay add-host failed: ${r.stderr}`);
    const file = join(dataRoot, 'relay-credential');
    writeFileSync(file, r.stdout.trim() + '\n', { mode: 0o600 });
    chmodSync(file, 0o600);
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
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `limpet pair` on the daemon's data root: the link it prints. */
export function pairingLink(dataRoot) {
  const r = spawnSync(javaBinary(), ['-jar', limpetJar(), 'pair', '--data-root', dataRoot, '--label', 'e2e'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`limpet pair failed: ${r.stderr}`);
  return r.stdout.split('\n')[0].trim();
}
