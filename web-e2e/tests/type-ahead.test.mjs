// Typing while the connection is cut: the keys are held in the tab (shown as pending), and arrive
// exactly once, in order, after it comes back. Beyond 4 KiB, typing is refused out loud.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  countOccurrences, launchBrowser, newPage, openFirstTerminal, screenOf, screenshot, snapshot, typeInTerminal, waitForPrompt,
  waitForScreen, waitForSnapshot,
} from './support/browser.mjs';
import { seriousViolations } from './support/axe.mjs';
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

/** Cuts every connection and waits until the page knows (the tab shows the reconnecting overlay). */
async function cut() {
  proxy.cutAll();
  await waitForSnapshot(page, (s) => s.host !== 'online' && s.tabs[0].phase === 'reconnecting', 'the page to notice the cut');
}

async function restore() {
  proxy.restore();
  await waitForSnapshot(page, (s) => s.host === 'online' && s.handshake === 'ready' && s.tabs[0].phase === 'live', 'the page to reconnect', 30_000);
}

const outputLines = (screen, line) => screen.split('\n').filter((l) => l.trim() === line).length;

test('keys typed while the connection is down are shown as pending and arrive exactly once after it comes back', async () => {
  const { activeTabId: tabId } = await snapshot(page);
  await waitForPrompt(page, tabId);
  await page.locator('.term-host:not(.hidden) .xterm').click(); // the terminal has the keyboard focus
  await cut();
  // The reconnecting overlay covers the terminal; the keys still go to it, as a person's would.
  await page.keyboard.type('echo ahead-$((40+2))', { delay: 5 });
  await page.keyboard.press('Enter');
  const held = await waitForSnapshot(page, (s) => s.tabs[0].pendingKeys > 0, 'the keys to be held');
  assert.equal(held.tabs[0].pendingKeys, 'echo ahead-$((40+2))'.length + 1, 'one pending key per key typed');
  await page.locator('[data-testid=pending-keys]', { hasText: `${held.tabs[0].pendingKeys} keys pending` }).waitFor();
  await screenshot(page, '60-keys-pending');
  // Offline: the session list says so (not the green "running"), and the screen stays accessible.
  const row = page.locator(`.session[data-session-id="${held.tabs[0].sessionId}"] .state`);
  assert.match(await row.getAttribute('class'), /\bstate (offline|reconnecting)\b/);
  assert.notEqual(await row.evaluate((e) => getComputedStyle(e).color), 'rgb(126, 192, 126)', 'not the colour of running');
  assert.deepEqual(await seriousViolations(page, 'keys pending while offline'), [], 'axe with keys pending');
  assert.equal(outputLines(await screenOf(page, tabId), 'ahead-42'), 0, 'nothing ran while the link was down');

  await restore();
  const screen = await waitForScreen(page, tabId, (t) => outputLines(t, 'ahead-42') >= 1, 'the held command to run');
  await page.waitForTimeout(1000); // a duplicate would have arrived by now
  const settled = await screenOf(page, tabId);
  assert.equal(outputLines(settled, 'ahead-42'), 1, `the command ran exactly once:\n${screen}`);
  assert.equal(countOccurrences(settled, 'echo ahead-$((40+2))'), 1, `the typed line was echoed once:\n${settled}`);
  assert.equal((await snapshot(page)).tabs[0].pendingKeys, 0);
  assert.equal(await page.locator('[data-testid=pending-keys]').count(), 0);
  await screenshot(page, '61-keys-sent');
});

test('beyond 4 KiB held, typing is refused with a toast, and the refused keys never arrive', async () => {
  const { activeTabId: tabId } = await snapshot(page);
  await waitForPrompt(page, tabId);
  await page.locator('.term-host:not(.hidden) .xterm').click();
  await cut();
  await page.keyboard.type('echo kept', { delay: 5 });
  await page.keyboard.insertText('#' + 'x'.repeat(5000)); // a paste larger than what may wait
  await page.locator('[data-testid=toast]', { hasText: 'Typing refused' }).waitFor();
  await page.keyboard.press('Enter');
  await screenshot(page, '62-typing-refused');
  assert.deepEqual(await seriousViolations(page, 'typing refused'), [], 'axe with the refusal toast');
  await restore();
  await waitForScreen(page, tabId, (t) => outputLines(t, 'kept') === 1, 'the keys that fitted to run');
  await page.waitForTimeout(500);
  assert.equal(countOccurrences(await screenOf(page, tabId), 'xxxxxxxxxx'), 0, 'the refused paste never reached the program');
  await typeInTerminal(page, 'echo typed-after\n');
  await waitForScreen(page, tabId, (t) => outputLines(t, 'typed-after') === 1, 'typing after the reconnect');
});
