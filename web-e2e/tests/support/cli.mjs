// The limpet CLI as a person on another machine runs it: its own HOME and config directory (no
// access to the daemon's data root), `limpet pair --join`, and `limpet attach` in a real terminal
// (util-linux `script` gives it a PTY; its output is read from script's stdout).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import xtermHeadless from '@xterm/headless';
import { JVM_FLAGS, javaBinary, limpetCommand, limpetJar } from './paths.mjs';

const shellQuote = (s) => `'${String(s).replaceAll("'", "'\\''")}'`;

/**
 * Removes terminal control sequences: `limpet attach` paints its screen row by row, so a move to a
 * row's start becomes a line break; then CSI/OSC/other escapes go.
 */
export function stripTerminal(text) {
  return text
    .replace(/\x1b\[\d+;1H/g, '\n')
    .replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, '')
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\x1b[()][A-Za-z0-9]/g, '')
    .replace(/\x1b[=>78cDEHM]/g, '')
    .replace(/\r/g, '');
}

export class RemoteCli {
  constructor() {
    this.home = mkdtempSync(join(tmpdir(), 'limpet-e2e-cli-'));
    this.env = {
      ...process.env,
      HOME: this.home,
      XDG_CONFIG_HOME: join(this.home, 'config'),
      LIMPET_HOME: join(this.home, 'no-daemon-here'),
    };
    for (const name of ['LIMPET_URL', 'LIMPET_TOKEN', 'LIMPET_SESSION_ID']) delete this.env[name];
    mkdirSync(this.env.XDG_CONFIG_HOME, { recursive: true });
    this.attaches = [];
  }

  /** Runs `limpet ARGS…` to the end (bounded); returns { status, stdout, stderr, ms }. */
  run(args, timeoutMs = 30_000) {
    const started = Date.now();
    const r = spawnSync(javaBinary(), [...JVM_FLAGS, '-jar', limpetJar(), ...args], { encoding: 'utf8', env: this.env, timeout: timeoutMs });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started, error: r.error };
  }

  pairJoin(name, link) {
    const r = this.run(['pair', '--join', name, link]);
    if (r.status !== 0) throw new Error(`limpet pair --join ${name} failed (${r.status}): ${r.stderr}${r.error ?? ''}`);
    return r;
  }

  /** `limpet attach --host NAME SESSION` under a real PTY of `cols`×`rows`. */
  attach(name, sessionId, { cols = 100, rows = 30 } = {}) {
    const command = `stty cols ${cols} rows ${rows}; exec ${[...limpetCommand(), 'attach', '--host', name, sessionId].map(shellQuote).join(' ')}`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env: this.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const attach = { child, output: '' };
    const onData = (chunk) => { attach.output += chunk.toString('utf8'); };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    attach.text = () => stripTerminal(attach.output);
    /** The screen the attach shows now: everything it wrote, read back by a terminal of its size. */
    attach.screen = async () => {
      const term = new xtermHeadless.Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
      await new Promise((resolve) => term.write(attach.output, resolve));
      const lines = [];
      for (let y = 0; y < rows; y++) lines.push(term.buffer.active.getLine(y)?.translateToString(true) ?? '');
      term.dispose();
      return lines.join('\n');
    };
    attach.type = (text) => child.stdin.write(text);
    attach.waitFor = async (test, description, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const text = attach.text();
        if (test(text)) return text;
        if (child.exitCode !== null || child.signalCode !== null) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`timed out waiting for ${description} in the CLI attach (exit ${child.exitCode ?? child.signalCode}); its output:\n${attach.text().slice(-3000)}`);
    };
    /** Detaches (Ctrl-\), then kills what is left after a bounded wait. */
    attach.stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.write('\x1c');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    };
    this.attaches.push(attach);
    return attach;
  }

  async cleanup() {
    for (const a of this.attaches) await a.stop().catch(() => {});
    rmSync(this.home, { recursive: true, force: true });
  }
}
