// A flood (`yes`) must never freeze the page: the tab detaches above its unrendered high-water
// mark and re-attaches from where it is once xterm has caught up. And a flood a visible tab keeps
// up with arrives whole: the page reads its socket in a worker while it draws, and stays lossless.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  screenshot, snapshot, typeInTerminal, waitForPrompt, waitForScreen,
} from './support/browser.mjs';
import { closeFreshPage, openFreshPage } from './support/fresh-page.mjs';

let daemon;
let browser;
let page;

before(async () => {
  ({ daemon, browser, page } = await openFreshPage());
});

after(() => closeFreshPage({ browser, daemon }));

test('yes for five seconds keeps the page responsive, and the terminal works afterwards', async () => {
  const tabId = (await snapshot(page)).activeTabId;
  await waitForPrompt(page, tabId);
  await page.evaluate(() => {
    const w = window;
    w.__lag = { max: 0, samples: 0 };
    let last = performance.now();
    w.__lagTimer = setInterval(() => {
      const now = performance.now();
      w.__lag.max = Math.max(w.__lag.max, now - last - 50);
      w.__lag.samples++;
      last = now;
    }, 50);
  });
  await typeInTerminal(page, 'timeout 5 yes limpet-flood-line\n');
  await page.waitForTimeout(2500);
  const during = Date.now();
  await page.evaluate(() => window.limpet.snapshot().tabs.length);
  const evaluateMs = Date.now() - during;
  await screenshot(page, '50-during-flood');
  await waitForPrompt(page, tabId);
  const lag = await page.evaluate(() => {
    clearInterval(window.__lagTimer);
    return window.__lag;
  });
  console.log(`flood: longest main-thread stall ${Math.round(lag.max)} ms over ${lag.samples} samples; a page call during the flood took ${evaluateMs} ms`);
  assert.ok(lag.max < 1500, `the page never stalls more than 1.5 s (longest ${Math.round(lag.max)} ms)`);
  assert.ok(evaluateMs < 1500, `the page answers during the flood (${evaluateMs} ms)`);
  await typeInTerminal(page, 'echo flood-$((40+2))-over\n');
  await waitForScreen(page, tabId, 'flood-42-over', 'typing after the flood', 20_000);
});

test('a visible tab keeps every line of an 8 MB flood, in order, read by the page\'s socket worker', async () => {
  // What the page sends, from its socket's start: a reload opens it again.
  const sent = [];
  const onSocket = (ws) => ws.on('framesent', ({ payload }) => typeof payload === 'string' && sent.push(payload));
  page.on('websocket', onSocket);
  await page.reload();
  const tabId = (await snapshot(page)).activeTabId;
  await waitForPrompt(page, tabId);
  assert.ok(page.workers().some((w) => w.url().endsWith('/socket-worker.js')), 'the page\'s socket lives in its worker');
  const file = join(tmpdir(), `limpet-e2e-flood-${process.pid}.txt`);
  const lines = [];
  for (let i = 0, size = 0; size < 8_000_000; i++) {
    const line = `${String(i).padStart(8, '0')} ${'whole-flood-'.repeat(6)}`;
    lines.push(line);
    size += line.length + 1;
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  try {
    await typeInTerminal(page, `clear; cat ${file}; echo whole-''flood-over\n`);
    await waitForScreen(page, tabId, 'whole-flood-over', 'the end of the flood', 60_000);
    const flow = sent.filter((m) => /"type":"(pty_flow|detach_session)"/.test(m));
    assert.deepEqual(flow, [], 'a tab that keeps rendering stays lossless through the flood');
    assert.ok(sent.some((m) => m.includes('"type":"pty_ack"')), 'it acknowledged what it rendered');
    // The scrollback (10,000 lines) ends with the flood's last lines, each once, none missing.
    const tail = await page.evaluate((id) => {
      const b = window.limpet.terminal(id).term.buffer.active;
      const out = [];
      for (let y = 0; y < b.length; y++) out.push(b.getLine(y).translateToString(true));
      return out.filter((l) => /^\d{8} whole-flood-/.test(l));
    }, tabId);
    assert.ok(tail.length > 9_000, `the scrollback holds the flood's last lines (${tail.length})`);
    assert.deepEqual(tail, lines.slice(lines.length - tail.length), 'the last lines of the flood, in order, none missing or doubled');
  } finally {
    page.off('websocket', onSocket);
    rmSync(file, { force: true });
  }
});
