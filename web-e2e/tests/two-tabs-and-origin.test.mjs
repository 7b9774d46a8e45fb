// Two browser tabs view one session; a page from another origin cannot open the WebSocket; the
// page's own socket runs compressed, as Chromium offers it.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import {
  launchBrowser, newPage, openFirstTerminal, screenshot, snapshot, typeInTerminal, waitForLiveTab, waitForScreen,
} from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';

let daemon;
let browser;

before(async () => {
  daemon = await new Daemon().start();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await daemon?.cleanup();
});

test('two browser tabs view one session and both see what either types', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
  const first = await newPage(browser, context);
  await first.goto(daemon.url);
  const a = await openFirstTerminal(first);
  const second = await newPage(browser, context);
  await second.goto(daemon.url);
  const b = await waitForLiveTab(second, 1);
  assert.equal(b.tabs[0].sessionId, a.tabs[0].sessionId, 'the fresh tab opened the running session');
  await typeInTerminal(first, 'echo typed-in-first\n');
  await waitForScreen(second, b.activeTabId, (t) => t.split('\n').some((l) => l.trim() === 'typed-in-first'), 'output in the second tab');
  await typeInTerminal(second, 'echo typed-in-second\n');
  await waitForScreen(first, a.activeTabId, (t) => t.split('\n').some((l) => l.trim() === 'typed-in-second'), 'output in the first tab');
  const sessions = await daemon.api('/api/sessions');
  assert.equal(sessions.find((s) => s.id === a.tabs[0].sessionId).attached, 2);
  await screenshot(second, '40-second-tab');
  assert.ok((await snapshot(first)).tabs.length === 1);
  await context.close();
});

test('a page from another origin cannot open the WebSocket, even with the token', async () => {
  const evil = http.createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end('<!doctype html><title>other origin</title>');
  });
  await new Promise((resolve) => evil.listen(0, '127.0.0.1', resolve));
  try {
    const page = await newPage(browser);
    await page.goto(`http://127.0.0.1:${evil.address().port}/`);
    const outcome = await page.evaluate(({ port, token }) => new Promise((resolve) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`, ['limpet.v1', `limpet.token.${token}`]);
      socket.onopen = () => resolve('opened');
      socket.onclose = (event) => resolve(`closed:${event.code}`);
      setTimeout(() => resolve('timeout'), 5000);
    }), { port: daemon.port, token: daemon.token });
    assert.equal(outcome, 'closed:1006', 'the upgrade is refused');
    const status = await new Promise((resolve, reject) => {
      const request = http.get(`${daemon.origin}/ws`, {
        headers: { Origin: `http://127.0.0.1:${evil.address().port}`, Connection: 'Upgrade', Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', Authorization: `Bearer ${daemon.token}` },
      }, (response) => { response.resume(); resolve(response.statusCode); });
      request.on('upgrade', (response, socket) => { socket.destroy(); resolve(response.statusCode); });
      request.on('error', reject);
    });
    assert.equal(status, 403, 'the daemon answers 403 to a foreign origin');
    await page.close();
  } finally {
    evil.close();
  }
});

test('the page\'s socket agrees to permessage-deflate with the daemon, and output that goes compressed arrives whole', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
  // The socket lives in a worker, which tells the page what the server agreed to when it opens.
  await context.addInitScript(() => {
    const Base = window.Worker;
    window.Worker = class extends Base {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (e) => {
          if (e.data?.type === 'open') window.__socketExtensions = e.data.extensions;
        });
      }
    };
  });
  const page = await newPage(browser, context);
  await page.goto(daemon.url);
  const s = await waitForLiveTab(page, 1);
  assert.equal(await page.evaluate(() => window.__socketExtensions), 'permessage-deflate', 'Chromium\'s offer was agreed');
  // Some 14 kB in messages well past the size the daemon compresses from; typed keys go the other way.
  await typeInTerminal(page, 'seq 1 3000; echo seq-$((1+1))-done\n');
  const screen = await waitForScreen(page, s.activeTabId, (t) => t.split('\n').some((l) => l.trim() === 'seq-2-done'), 'the output');
  const lines = screen.split('\n').map((l) => l.trim());
  assert.ok(lines.includes('2999') && lines.includes('3000'), `the last numbers arrived:\n${screen}`);
  await context.close();
});
