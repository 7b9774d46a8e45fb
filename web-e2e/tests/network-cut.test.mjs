// Cut the WebSocket: the indicator and the per-terminal overlay show it, then the page resumes
// by itself with the output produced meanwhile and no duplicated lines.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  countOccurrences, launchBrowser, newPage, openFirstTerminal, screenshot, snapshot, typeInTerminal, waitForScreen, waitForSnapshot,
  waitForPrompt,
} from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';
import { TcpProxy } from './support/tcp-proxy.mjs';

let daemon;
let proxy;
let browser;
let page;

before(async () => {
  daemon = new Daemon();
  // The page is served through the proxy, so its origin is the proxy's: allow it explicitly.
  proxy = await new TcpProxy(0).listen();
  daemon.extraArgs = ['--allow-origin', `http://127.0.0.1:${proxy.port}`];
  await daemon.start();
  proxy.targetPort = daemon.port;
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(`http://127.0.0.1:${proxy.port}/#token=${daemon.token}`);
  await openFirstTerminal(page);
});

after(async () => {
  await browser?.close();
  await proxy?.close();
  await daemon?.cleanup();
});

test('a cut connection shows offline, then resumes with no duplicated or missing lines', async () => {
  const { activeTabId: tabId, tabs } = await snapshot(page);
  const sessionId = tabs[0].sessionId;
  await waitForPrompt(page, tabId);
  await typeInTerminal(page, 'for i in $(seq 1 5); do echo line-$i; done\n');
  await waitForScreen(page, tabId, (t) => t.split('\n').some((l) => l.trim() === 'line-5'), 'the first lines');

  proxy.cutAll();
  await waitForSnapshot(page, (s) => s.host !== 'online', 'the page to notice the cut');
  await page.locator('[data-testid=indicator][data-tone=down]').waitFor({ timeout: 10_000 });
  await page.locator('.term-host:not(.hidden) .overlay.reconnecting').waitFor();
  await screenshot(page, '20-connection-cut');

  // Output produced while the link is down, typed through the HTTP API.
  await daemon.api(`/api/sessions/${sessionId}/input`, { method: 'POST', body: JSON.stringify({ data: 'for i in $(seq 6 9); do echo line-$i; done\n' }) });
  await new Promise((resolve) => setTimeout(resolve, 800));
  proxy.restore();

  await waitForSnapshot(page, (s) => s.host === 'online' && s.handshake === 'ready' && s.tabs[0].phase === 'live', 'the page to reconnect', 30_000);
  const screen = await waitForScreen(page, tabId, (t) => t.split('\n').some((l) => l.trim() === 'line-9'), 'output produced while offline');
  for (let i = 1; i <= 9; i++) {
    assert.equal(screen.split('\n').filter((l) => l.trim() === `line-${i}`).length, 1, `line-${i} appears exactly once:\n${screen}`);
  }
  assert.equal(countOccurrences(screen, 'seq 1 5'), 1, `the first command line appears once:\n${screen}`);
  // The overlay goes with the next render after the tab is live (a frame later on a loaded machine).
  await page.locator('.term-host:not(.hidden) .overlay.reconnecting').waitFor({ state: 'detached', timeout: 10_000 });
  await typeInTerminal(page, 'echo typed-after-reconnect\n');
  await waitForScreen(page, tabId, (t) => t.split('\n').some((l) => l.trim() === 'typed-after-reconnect'), 'typing after the reconnect');
  await screenshot(page, '21-reconnected');
});
