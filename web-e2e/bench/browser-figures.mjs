// The browser figures of `./limpet bench`: what a person gets in the web UI, measured in Debian's
// Chromium against xterm.js on its own in the same page, so the ratio holds whatever the machine.
//
//   node bench/browser-figures.mjs --url URL [--keys N] [--flood-bytes N] [--runs N]
//
// URL is a running daemon's page with its token (http://127.0.0.1:PORT/#token=…). Prints one JSON
// line on stdout (progress goes to stderr):
//   { "keyToGlyph": { "limpet": [ms, …], "limpetBlinking": [ms, …], "xterm": [ms, …] },
//     "flood": { "bytes": N, "limpet": [ms, …], "xterm": [ms, …] }, "deflate": "…" }
//
// key → glyph: a key pressed (CDP input, as a person's) until the frame that draws its echo: from the
// page's keydown (capture phase, before xterm sees it) to the first xterm render after the cursor
// moved. limpet: the page's own terminal, attached to `stty raw -echo; cat` in a session, with a
// steady cursor and then with a blinking one (the program asks for it, as many do). xterm: a
// second terminal of the same class and options in the same page whose input is written straight
// back into it (local echo), which is the floor: one parse and one animation frame.
//
// flood: N bytes of lines (`seq`-like, 80 columns) until their last line is drawn. limpet: a session
// prints them (`head -c N` of a file written before the clock starts) and the page shows them; the
// time runs from the Enter that starts it to the render that shows the end marker. xterm: the same
// bytes written into a fresh terminal of the same class in 64 KiB pieces, as fast as it takes them.
//
// The browser is driven over a bare DevTools connection (bare-chromium.mjs says why not playwright).
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBareChromium, sleep } from './bare-chromium.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) => {
  if (a.startsWith('--')) pairs.push([a.slice(2), all[i + 1]]);
  return pairs;
}, []));
const url = args.url;
if (!url) {
  console.error('usage: node bench/browser-figures.mjs --url URL [--keys N] [--flood-bytes N] [--runs N]');
  process.exit(2);
}
const keys = Number(args.keys ?? 200);
const floodBytes = Number(args['flood-bytes'] ?? 20_000_000);
const runs = Number(args.runs ?? 3);
const log = (m) => console.error(`[browser] ${m}`);

/** The flood's text: numbered 79-character lines and a marker line, so its end is recognisable. */
function floodText(bytes) {
  const line = (i) => `${String(i).padStart(8, '0')} ${'limpet-flood-'.repeat(6).slice(0, 69)}\r\n`;
  const parts = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const l = line(i);
    parts.push(l);
    size += l.length;
  }
  return parts.join('');
}

/** Runs `fn(...args)` in the page (its source and JSON arguments) and returns what it returns. */
const call = (page, fn, ...args) => page.evaluate(`(${fn.toString()})(...${JSON.stringify(args)})`);

/** In the page: the focus on the terminal of the active tab (`which`: 'limpet') or the reference, as a click gives it. */
const focusTerminal = (page, which) => call(page, (w) => {
  document.querySelector(w === 'xterm' ? '#bench-reference .xterm textarea' : '.term-host:not(.hidden) .xterm textarea').focus();
}, which);

/** In the page: a reference terminal of the page's own xterm class and options, shown over the app. */
async function openReference(page, tabId) {
  await call(page, (id) => {
    const app = window.limpet.terminal(id).term;
    const host = document.createElement('div');
    host.id = 'bench-reference';
    host.style.cssText = 'position:fixed;left:0;top:0;width:800px;height:460px;z-index:10000;background:#101216';
    document.body.append(host);
    const term = new app.constructor({ ...app.options, cols: app.cols, rows: app.rows });
    term.open(host);
    term.onData((data) => term.write(data));
    window.__benchReference = term;
  }, tabId);
}

async function closeReference(page) {
  await call(page, () => {
    document.getElementById('bench-reference')?.remove();
    window.__benchReference?.dispose();
    delete window.__benchReference;
  });
}

/**
 * Arms the page to time the next key on `which` terminal: keydown (capture) → first render after
 * the cursor moved. Resolves in the page with the milliseconds.
 */
async function timeKey(page, which, tabId, key) {
  // Armed in one call and awaited in another: a key sent while the arming call is still in flight
  // could reach the page before its listener.
  await call(page, (w, id) => {
    const term = w === 'xterm' ? window.__benchReference : window.limpet.terminal(id).term;
    const b = term.buffer.active;
    const before = `${b.baseY + b.cursorY}:${b.cursorX}`;
    let t0 = 0;
    window.addEventListener('keydown', () => { t0 = performance.now(); }, { capture: true, once: true });
    window.__benchKey = new Promise((resolve, reject) => {
      const timer = setTimeout(() => { sub.dispose(); reject(new Error(`no echo drawn in 10 s (${w})`)); }, 10_000);
      const sub = term.onRender(() => {
        const now = `${b.baseY + b.cursorY}:${b.cursorX}`;
        if (now === before) return;
        sub.dispose();
        clearTimeout(timer);
        if (t0 === 0) reject(new Error(`the echo came before the key (${w}): ${before} → ${now}`));
        else resolve(performance.now() - t0);
      });
    });
  }, which, tabId);
  await page.press(key);
  return page.evaluate('window.__benchKey');
}

async function keyToGlyph(page, tabId) {
  const measure = async (which) => {
    const out = [];
    for (let i = 0; i < keys; i++) {
      const ms = await timeKey(page, which, tabId, String.fromCharCode(97 + (i % 26)));
      if (i >= keys / 10) out.push(ms); // the first tenth warms up the page and the daemon
      await sleep(5);
    }
    return out;
  };
  await focusTerminal(page, 'limpet');
  const limpet = await measure('limpet');
  // A program that asks for a blinking cursor (DECSCUSR 1): `cat` echoes the request typed to it.
  await page.insertText('\u001b[1 q');
  await page.waitFor(`document.querySelector('.term-host:not(.hidden) .xterm-cursor.xterm-cursor-blink')`, 'a blinking cursor');
  const limpetBlinking = await measure('limpet');
  await openReference(page, tabId);
  await focusTerminal(page, 'xterm');
  const xterm = await measure('xterm');
  await closeReference(page);
  return { limpet, limpetBlinking, xterm };
}

/** Milliseconds from Enter until the render that shows the flood's end marker. */
async function floodInPage(page, tabId, file, marker) {
  await focusTerminal(page, 'limpet');
  await page.insertText(`clear; cat ${file}; echo ${marker.slice(0, 4)}''${marker.slice(4)}`);
  await sleep(200);
  await call(page, (id, m) => {
    const term = window.limpet.terminal(id).term;
    let t0 = 0;
    window.addEventListener('keydown', () => { t0 = performance.now(); }, { capture: true, once: true });
    window.__benchFlood = new Promise((resolve, reject) => {
      const timer = setTimeout(() => { sub.dispose(); reject(new Error('the flood did not end in 300 s')); }, 300_000);
      const sub = term.onRender(() => {
        const b = term.buffer.active;
        for (let y = 0; y < term.rows; y++) {
          if (b.getLine(b.viewportY + y)?.translateToString(true) === m) {
            sub.dispose();
            clearTimeout(timer);
            resolve(performance.now() - t0);
            return;
          }
        }
      });
    });
  }, tabId, marker);
  await page.press('Enter');
  return page.evaluate('window.__benchFlood');
}

/** Milliseconds for a fresh reference terminal to take and draw the same bytes. */
async function floodInXterm(page, tabId, text, marker) {
  return call(page, (id, data, m) => new Promise((resolve) => {
    const app = window.limpet.terminal(id).term;
    const host = document.createElement('div');
    host.style.cssText = 'position:fixed;left:0;top:0;width:800px;height:460px;z-index:10000;background:#101216';
    document.body.append(host);
    const term = new app.constructor({ ...app.options, cols: app.cols, rows: app.rows });
    term.open(host);
    const bytes = new TextEncoder().encode(`${data}${m}\r\n`);
    const t0 = performance.now();
    const sub = term.onRender(() => {
      const b = term.buffer.active;
      for (let y = 0; y < term.rows; y++) {
        if (b.getLine(b.viewportY + y)?.translateToString(true) === m) {
          sub.dispose();
          const ms = performance.now() - t0;
          host.remove();
          setTimeout(() => term.dispose(), 0); // not inside its own render
          resolve(ms);
          return;
        }
      }
    });
    for (let i = 0; i < bytes.length; i += 65536) term.write(bytes.subarray(i, i + 65536));
  }), tabId, text, marker);
}

async function flood(page, tabId) {
  const text = floodText(floodBytes);
  const file = join(tmpdir(), `limpet-bench-flood-${process.pid}.txt`);
  writeFileSync(file, text);
  const limpet = [];
  const xterm = [];
  try {
    // One pair first, not counted: both terminals' code runs its first time (the JIT's warm-up).
    for (let r = -1; r < runs; r++) {
      const marker = `limpet-flood-end-${r + 1}`;
      const inPage = await floodInPage(page, tabId, file, marker);
      await waitForPrompt(page, tabId);
      const alone = await floodInXterm(page, tabId, text, marker);
      log(`flood ${r < 0 ? 'warm-up' : `run ${r + 1}`}: page ${Math.round(inPage)} ms, xterm.js alone ${Math.round(alone)} ms`);
      if (r < 0) continue;
      limpet.push(inPage);
      xterm.push(alone);
    }
  } finally {
    rmSync(file, { force: true });
  }
  return { bytes: text.length, limpet, xterm };
}

/** The active tab's screen as text, and a wait for it to pass `test`. */
async function waitForScreen(page, tabId, test, description, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < deadline) {
    text = await call(page, (id) => window.limpet.screen(id), tabId);
    if (test(text)) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${description}; screen:\n${text}`);
}
const waitForPrompt = (page, tabId) => waitForScreen(page, tabId, (t) => /[#$]\s*$/.test(t.trimEnd()), 'a shell prompt');

const page = await openBareChromium();
try {
  // What the browser and the daemon agreed on for the page's WebSocket (the figure's conditions),
  // as the socket's worker tells the page when it opens.
  await page.beforeEachDocument(`{
    const Base = window.Worker;
    window.Worker = class extends Base {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (e) => { if (e.data?.type === 'open') window.__benchExtensions = e.data.extensions; });
      }
    };
  }`);
  await page.goto(url);
  await page.waitFor(`[...document.querySelectorAll('button')].some((b) => b.textContent.trim() === 'Open a terminal')`, 'the page');
  await call(page, () => [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Open a terminal').click());
  await page.waitFor(`window.limpet.snapshot().activeTabId && document.querySelector('.term-host:not(.hidden) .xterm')`, 'a terminal tab');
  const tabId = await page.evaluate('window.limpet.snapshot().activeTabId');
  await waitForPrompt(page, tabId);
  const deflate = await page.evaluate('window.__benchExtensions ?? "unknown"') || 'none';
  log(`the page's socket: extensions "${deflate}"`);
  const floodResult = await flood(page, tabId);
  await waitForPrompt(page, tabId);
  await focusTerminal(page, 'limpet');
  await page.insertText('clear; stty raw -echo; exec cat');
  await sleep(200);
  await page.press('Enter');
  await waitForScreen(page, tabId, (t) => t.trim() === '', 'the echo program');
  await sleep(300);
  const keyResult = await keyToGlyph(page, tabId);
  process.stdout.write(`${JSON.stringify({ keyToGlyph: keyResult, flood: floodResult, deflate })}\n`);
} finally {
  await page.close();
}
