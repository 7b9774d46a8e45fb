// Debian's Chromium driven over a bare DevTools connection, for the bench's browser figures.
//
// Not playwright: playwright turns on the Network domain of every page and worker it attaches to,
// so the browser sends it each WebSocket frame's payload (base64, in JSON) and the bench's own
// process parses it. For a 20 MB flood that is ~27 MB of JSON on the same two cores as the page,
// the daemon and the flooding program: the page measured ~1.4× slower than with nothing
// listening. This driver uses only Runtime (evaluate), Input (keys as a person's, trusted events),
// Page (navigate, a script before the page's own) and Emulation (the window's size).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumPath } from '../tests/support/paths.mjs';
import { CHROMIUM_ARGS } from '../tests/support/browser.mjs';

// playwright-core's bundled `ws` client: no dependency of our own for one socket.
const { ws: WebSocket } = createRequire(import.meta.url)('playwright-core/lib/utilsBundle');

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A page of a Chromium of its own (its own profile, deleted by close()). */
export async function openBareChromium({ width = 1280, height = 760 } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'limpet-bench-chromium-'));
  const proc = spawn(chromiumPath(), [...CHROMIUM_ARGS, '--remote-debugging-port=0', `--user-data-dir=${profile}`,
    `--window-size=${width},${height}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const browserUrl = await new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`Chromium did not start in 30 s:\n${err}`)), 30_000);
    proc.stderr.on('data', (d) => {
      err += d;
      const m = err.match(/DevTools listening on (ws:\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.on('exit', (code) => reject(new Error(`Chromium exited (${code}):\n${err}`)));
  });
  const targets = await (await fetch(`http://127.0.0.1:${new URL(browserUrl).port}/json/list`)).json();
  const socket = new WebSocket(targets.find((t) => t.type === 'page').webSocketDebuggerUrl, { perMessageDeflate: false, maxPayload: 1 << 30 });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let lastId = 0;
  const pending = new Map();
  socket.on('message', (data) => {
    const m = JSON.parse(data);
    const p = m.id === undefined ? undefined : pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error) p.reject(new Error(`${p.method}: ${m.error.message}`));
    else p.resolve(m.result);
  });
  const send = (method, params = {}) => new Promise((resolve, reject) => {
    const id = ++lastId;
    pending.set(id, { resolve, reject, method });
    socket.send(JSON.stringify({ id, method, params }));
  });
  await send('Page.enable');
  await send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });

  const page = {
    send,
    /** Evaluates `expression` in the page (awaiting a promise) and returns its value. */
    async evaluate(expression) {
      const r = await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
      if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return r.result.value;
    },
    /** Runs `source` in every document before its own scripts. */
    beforeEachDocument: (source) => send('Page.addScriptToEvaluateOnNewDocument', { source }),
    async goto(url) {
      await send('Page.navigate', { url });
    },
    /** Waits until `expression` is truthy in the page. */
    async waitFor(expression, description, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (await page.evaluate(expression).catch(() => false)) return;
        await sleep(50);
      }
      throw new Error(`timed out waiting for ${description}`);
    },
    /** Text as typed into the focused element (one input event: no key events). */
    insertText: (text) => send('Input.insertText', { text }),
    /** A key pressed and released, as a person's (a printable one carries its text). */
    async press(key) {
      const special = { Enter: { code: 'Enter', keyCode: 13, text: '\r' } }[key];
      const code = special?.code ?? `Key${key.toUpperCase()}`;
      const keyCode = special?.keyCode ?? key.toUpperCase().charCodeAt(0);
      const text = special?.text ?? key;
      await send('Input.dispatchKeyEvent', { type: 'keyDown', key, code, windowsVirtualKeyCode: keyCode, text });
      await send('Input.dispatchKeyEvent', { type: 'keyUp', key, code, windowsVirtualKeyCode: keyCode });
    },
    async close() {
      socket.close();
      const exited = new Promise((resolve) => (proc.exitCode !== null ? resolve() : proc.once('exit', resolve)));
      // The whole process group (its own: `detached`): Chromium's helpers write into the profile too.
      try {
        process.kill(-proc.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await exited;
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
  return page;
}
