// The bench's browser figure (bench/…/BrowserFigure.java runs it): what a person sees in the web
// UI, in Debian's Chromium, against xterm.js alone in the same page and the same run.
//
//   node bench/browser-figure.mjs ORIGIN TOKEN [KEYS] [FLOOD_MB] [RUNS]
//
// - key to glyph: a key pressed (CDP key event) until its glyph is in the terminal's rows (the DOM
//   renderer's mutation, in the frame that paints it), into `stty raw -echo; cat` through limpet,
//   against a second xterm.js terminal in the same page echoing the key locally;
// - flood: FLOOD_MB of text lines written by `cat` in a session shown by the page (attached as the
//   page attaches: lossless, permessage-deflate as the browser negotiates it) until its last line
//   is drawn, against the same bytes written to xterm.js alone in the same page.
//
// Prints one JSON object: {deflate, keyToGlyph: {limpet: [[ms]], xterm: [[ms]], limpetArrived: [[ms]]}, flood: {limpet: [ms],
// xterm: [ms], bytes}}, one inner array per run; limpetArrived: from the key until the echo's frame reached the page.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../tests/support/browser.mjs';
import { chromiumPath, repoRoot } from '../tests/support/paths.mjs';

const [origin, token, keysArg = '200', floodArg = '20', runsArg = '3'] = process.argv.slice(2);
const KEYS = Number(keysArg);
const FLOOD_BYTES = Number(floodArg) * 1_000_000;
const RUNS = Number(runsArg);
const END_MARK = 'LIMPET-FLOOD-END';
const XTERM = createRequire(join(repoRoot, 'web', 'package.json')).resolve('@xterm/xterm/lib/xterm.js');

const log = (line) => process.stderr.write(`browser figure: ${line}\n`);

async function api(path, init = {}) {
  const response = await fetch(origin + path, {
    ...init, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) },
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** The flood's text: numbered lines of printable ASCII, the same bytes for limpet and xterm.js (generated again in the page). */
function floodText(bytes) {
  const parts = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${String(i).padStart(8, '0')} the quick brown fox jumps over the lazy dog 0123456789 abcdefghij\r\n`;
    parts.push(line);
    size += line.length;
  }
  return parts.join('');
}

// ---- in the page ----------------------------------------------------------------------------------

/** Installed once: a keydown stamp, and a watcher that stamps when a row shows the awaited glyph. */
function instrument() {
  const w = window;
  w.__bench = { t0: 0, t1: 0, row: null, col: 0, glyph: '', watching: null };
  document.addEventListener('keydown', () => { w.__bench.t0 = performance.now(); }, { capture: true });
  w.__bench.watch = (rows, col, glyph) => {
    const b = w.__bench;
    b.watching?.disconnect();
    b.t1 = 0;
    const check = () => {
      const row = rows.firstElementChild;
      if (row && row.textContent.charAt(col) === glyph && b.t1 === 0) b.t1 = performance.now();
    };
    b.watching = new MutationObserver(check);
    b.watching.observe(rows, { subtree: true, childList: true, characterData: true });
  };
  w.__bench.watchText = (rows, text) => {
    const b = w.__bench;
    b.watching?.disconnect();
    b.t1 = 0;
    b.watching = new MutationObserver(() => {
      if (b.t1 === 0 && rows.textContent.includes(text)) b.t1 = performance.now();
    });
    b.watching.observe(rows, { subtree: true, childList: true, characterData: true });
  };
}

/** A second terminal, xterm.js alone, over the page (same size and renderer as the page's). */
function openReference({ cols, rows }) {
  const host = document.createElement('div');
  host.id = 'bench-reference';
  Object.assign(host.style, { position: 'fixed', left: '0', top: '0', width: '100vw', height: '100vh', zIndex: 1000, background: '#101216' });
  document.body.appendChild(host);
  const term = new window.Terminal({ cols, rows, scrollback: 10_000, fontSize: 13,
    fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace' });
  term.open(host);
  term.onData((data) => term.write(data)); // local echo
  term.focus();
  window.__reference = term;
  return true;
}

function closeReference() {
  window.__reference?.dispose();
  document.getElementById('bench-reference')?.remove();
  window.__reference = null;
}

// ---- measurements ----------------------------------------------------------------------------------

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';
const LINE = 60;

/** Installed before the page's scripts: stamps when the page's WebSocket delivered a message. */
function stampMessages() {
  const Native = window.WebSocket;
  window.__wsAt = 0;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      // Registered before the page sets onmessage: runs first, as the message is delivered.
      this.addEventListener('message', () => { window.__wsAt = performance.now(); });
    }
  };
}

/**
 * Presses KEYS keys into the terminal whose rows `rowsSelector` names; returns each key's
 * milliseconds to its glyph, and (`split`) the part until the echo's frame reached the page.
 */
async function keyToGlyph(page, rowsSelector, split = null) {
  const out = [];
  for (let i = 0; i < KEYS; i++) {
    const col = i % LINE;
    if (col === 0 && i > 0) {
      await page.keyboard.press('Enter'); // raw mode: back to column 0, the next pass overwrites
      await page.waitForTimeout(20);
    }
    const glyph = ALPHABET[(col + Math.floor(i / LINE)) % ALPHABET.length];
    await page.evaluate(({ sel, c, g }) => window.__bench.watch(document.querySelector(sel), c, g), { sel: rowsSelector, c: col, g: glyph });
    await page.keyboard.press(glyph);
    await page.waitForFunction(() => window.__bench.t1 > 0, null, { polling: 'raf', timeout: 10_000 });
    const t = await page.evaluate(() => ({ total: window.__bench.t1 - window.__bench.t0, arrived: window.__wsAt - window.__bench.t0 }));
    out.push(t.total);
    split?.push(t.arrived);
    await page.waitForTimeout(5);
  }
  split?.splice(0, Math.floor(out.length / 10));
  return out.slice(Math.floor(out.length / 10)); // the first tenth warms up
}

async function floodLimpet(page, rowsSelector) {
  await page.evaluate(({ sel, mark }) => window.__bench.watchText(document.querySelector(sel), mark), { sel: rowsSelector, mark: END_MARK });
  await page.keyboard.press('Enter'); // the session's `read` returns: cat starts
  await page.waitForFunction(() => window.__bench.t1 > 0, null, { polling: 'raf', timeout: 600_000 });
  return page.evaluate(() => window.__bench.t1 - window.__bench.t0);
}

async function floodReference(page, bytes) {
  return page.evaluate(async ({ size, mark }) => {
    const parts = [];
    let total = 0;
    for (let i = 0; total < size; i++) {
      const line = `${String(i).padStart(8, '0')} the quick brown fox jumps over the lazy dog 0123456789 abcdefghij\r\n`;
      parts.push(line);
      total += line.length;
    }
    const bytesOut = new TextEncoder().encode(parts.join('') + mark + '\r\n');
    const term = window.__reference;
    const rows = document.querySelector('#bench-reference .xterm-rows');
    window.__bench.watchText(rows, mark);
    const t0 = performance.now();
    // As frames arrive from a socket: 64 KiB at a time, each write queued behind the last.
    for (let off = 0; off < bytesOut.length; off += 65536) term.write(bytesOut.subarray(off, off + 65536));
    while (window.__bench.t1 === 0) await new Promise((resolve) => requestAnimationFrame(resolve));
    return window.__bench.t1 - t0;
  }, { size: bytes, mark: END_MARK });
}

// ---- the run -------------------------------------------------------------------------------------

const floodFile = join(tmpdir(), `limpet-bench-flood-${process.pid}.txt`);
writeFileSync(floodFile, floodText(FLOOD_BYTES) + END_MARK + '\r\n');
const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
const result = { deflate: null, keyToGlyph: { limpet: [], xterm: [], limpetArrived: [] }, flood: { limpet: [], xterm: [], bytes: FLOOD_BYTES } };
try {
  // Every session exists before the page opens: it opens each in a tab of its own, attached as it attaches.
  const echo = await api('/api/sessions', { method: 'POST', body: JSON.stringify({ command: ['sh', '-c', 'stty raw -echo; exec cat'], label: 'bench-echo' }) });
  const floods = [];
  for (let run = 0; run < RUNS; run++) {
    floods.push(await api('/api/sessions', {
      method: 'POST', body: JSON.stringify({ command: ['sh', '-c', `stty -echo; read x; exec cat ${floodFile}`], label: `bench-flood-${run}` }),
    }));
  }
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.webSocketHandshakeResponseReceived', (e) => {
    const h = e.response.headers;
    result.deflate = h['Sec-WebSocket-Extensions'] ?? h['sec-websocket-extensions'] ?? 'none';
  });
  await page.addInitScript(stampMessages);
  await page.goto(`${origin}/#token=${token}`);
  const show = async (id) => {
    await page.locator(`.tab[data-session-id="${id}"]`).click();
    await page.waitForFunction((sid) => {
      const s = window.limpet.snapshot();
      const tab = s.tabs.find((t) => t.sessionId === sid);
      return tab && tab.phase === 'live' && s.activeTabId === tab.tabId;
    }, id, { timeout: 60_000 });
    await page.locator('.term-host:not(.hidden) .xterm').click();
  };
  await page.waitForFunction((n) => window.limpet?.snapshot().tabs.filter((t) => t.phase === 'live').length === n, RUNS + 1, { timeout: 120_000 });
  await page.evaluate(readFileSync(XTERM, 'utf8')); // xterm.js alone, for the reference (evaluated: the page's CSP refuses inline scripts)
  await page.evaluate(instrument);
  const rowsOfActive = '.term-host:not(.hidden) .xterm-rows';
  const { cols, rows } = await page.evaluate((id) => {
    const tab = window.limpet.snapshot().tabs.find((t) => t.sessionId === id);
    return { cols: tab.session?.cols ?? 80, rows: tab.session?.rows ?? 24 };
  }, echo.id);
  for (let run = 0; run < RUNS; run++) {
    await show(echo.id);
    const arrived = [];
    result.keyToGlyph.limpet.push(await keyToGlyph(page, rowsOfActive, arrived));
    result.keyToGlyph.limpetArrived.push(arrived);
    await page.evaluate(openReference, { cols, rows });
    result.keyToGlyph.xterm.push(await keyToGlyph(page, '#bench-reference .xterm-rows'));
    await page.evaluate(closeReference);
    log(`run ${run + 1}: key to glyph measured`);
  }
  for (let run = 0; run < RUNS; run++) {
    await show(floods[run].id);
    result.flood.limpet.push(await floodLimpet(page, rowsOfActive));
    await page.evaluate(openReference, { cols, rows });
    result.flood.xterm.push(await floodReference(page, FLOOD_BYTES));
    await page.evaluate(closeReference);
    log(`run ${run + 1}: flood ${result.flood.limpet.at(-1).toFixed(0)} ms in the page, ${result.flood.xterm.at(-1).toFixed(0)} ms xterm.js alone`);
  }
  for (const id of [echo.id, ...floods.map((f) => f.id)]) await api(`/api/sessions/${id}`, { method: 'DELETE' }).catch(() => undefined);
} finally {
  await browser.close();
  rmSync(floodFile, { force: true });
}
process.stdout.write(JSON.stringify(result) + '\n');
