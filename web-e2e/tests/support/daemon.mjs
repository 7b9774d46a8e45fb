// Starts a real limpet daemon from the built jar on a temporary data root, reads the URL it
// prints, and can kill -9 it and start it again on the same data root and port.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAEMON_JVM_FLAGS, javaBinary, limpetJar } from './paths.mjs';

const LISTENING = /listening on (http:\/\/[^\s/]+)\//;

export class Daemon {
  /** `env`: variables for the daemon on top of this process's (XDG_CONFIG_HOME for its hosts.json, say). */
  constructor({ extraArgs = [], env = {} } = {}) {
    this.dataRoot = mkdtempSync(join(tmpdir(), 'limpet-e2e-'));
    // The sessions' home: empty, so their login shells read the system's profile and none of this
    // machine user's dotfiles. Those can block a shell's start for a minute (pyenv's rehash waits
    // on a lock file that a shell killed mid-rehash leaves behind), and the tests' verdicts must
    // not depend on them.
    this.home = mkdtempSync(join(tmpdir(), 'limpet-e2e-home-'));
    this.extraArgs = extraArgs;
    this.env = env;
    this.process = null;
    this.port = 0;
    this.output = '';
  }

  /** Starts the daemon (on the previous port when restarting) and waits for its URL line. */
  async start(timeoutMs = 60_000) {
    const args = [...DAEMON_JVM_FLAGS, '-jar', limpetJar(), 'daemon',
      '--data-root', this.dataRoot, '--port', String(this.port), ...this.extraArgs];
    // Workers outlive their daemon by design; a suite that dies early must not leave them for days.
    const env = { LIMPET_WORKER_ORPHAN_TTL: '120', ...process.env, HOME: this.home, ...this.env };
    const child = spawn(javaBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    this.process = child;
    let buffered = '';
    const found = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`daemon did not print its URL in ${timeoutMs} ms:\n${this.output}`)), timeoutMs);
      const onData = (chunk) => {
        const text = chunk.toString();
        this.output += text;
        buffered += text;
        const match = LISTENING.exec(buffered);
        if (match) {
          clearTimeout(timer);
          resolve(match);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', (chunk) => { this.output += chunk.toString(); });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`daemon exited (${code ?? signal}) before listening:\n${this.output}`));
      });
    });
    child.removeAllListeners('exit');
    this.origin = found[1];
    // the daemon prints its token to a terminal only (stdout is a pipe here): it is in the data root
    this.token = readFileSync(join(this.dataRoot, 'auth-token'), 'utf8').trim();
    this.port = Number(new URL(this.origin).port);
    this.url = `${this.origin}/#token=${this.token}`;
    return this;
  }

  /** kill -9: no shutdown hook, no goodbye to clients. */
  async kill9() {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.process = null;
  }

  async stop() {
    await this.kill9();
  }

  async api(path, init = {}) {
    const response = await fetch(this.origin + path, {
      ...init,
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) },
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }

  /** Removes every session (their workers end with them), then stops the daemon and its data. */
  async cleanup() {
    if (this.process && this.process.exitCode === null) {
      try {
        for (const session of await this.api('/api/sessions')) {
          await this.api(`/api/sessions/${session.id}`, { method: 'DELETE' });
        }
      } catch (error) {
        console.error(`limpet-e2e: could not remove the sessions of ${this.dataRoot}: ${error}`);
      }
    }
    await this.kill9();
    rmSync(this.dataRoot, { recursive: true, force: true });
    rmSync(this.home, { recursive: true, force: true });
  }
}
