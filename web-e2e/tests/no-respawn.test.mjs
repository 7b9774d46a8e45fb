// The page never starts a session on its own: opening it starts nothing until a person
// asks, a finished command is not run again by a reload or a daemon restart, and a session removed
// in one window (another page, `limpet rm`) is not started again by a page that still shows it:
// its tab closes and says so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  launchBrowser, newPage, openFirstTerminal, openTerminalButton, screenshot, snapshot, waitForLiveTab, waitForSnapshot,
} from './support/browser.mjs';
import { seriousViolations } from './support/axe.mjs';
import { Daemon } from './support/daemon.mjs';
import { JVM_FLAGS, javaBinary, limpetJar } from './support/paths.mjs';

let daemon;
let browser;
let scratch;

before(async () => {
  daemon = await new Daemon().start();
  browser = await launchBrowser();
  scratch = mkdtempSync(join(tmpdir(), 'limpet-e2e-ran-'));
});

after(async () => {
  await browser?.close();
  await daemon?.cleanup();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Runs a limpet CLI verb against the test daemon; returns its stdout, failing on a non-zero exit. */
function limpet(...args) {
  const result = spawnSync(javaBinary(), [...JVM_FLAGS, '-jar', limpetJar(), ...args, '--data-root', daemon.dataRoot],
    { encoding: 'utf8', timeout: 60_000 });
  assert.equal(result.status, 0, `limpet ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

const sessionIds = () => JSON.parse(limpet('ls', '--json')).map((s) => s.id).sort();
const linesOf = (path) => readFileSync(path, 'utf8').split('\n').filter(Boolean);
/** Long enough for a page that would start something to have sent it and the daemon to have run it. */
const settle = (page) => page.waitForTimeout(1500);

async function startCommand(page, command) {
  await page.click('[data-testid=new-command]');
  await page.fill('input[name=command]', command);
  await page.click('.dialog button[type=submit]');
}

test('opening the page on a daemon starts nothing until a person asks', async () => {
  const page = await newPage(browser);
  await page.goto(daemon.url);
  await waitForSnapshot(page, (s) => s.handshake === 'ready', 'the page to connect');
  const button = openTerminalButton(page);
  await button.waitFor();
  assert.match(await page.locator('.placeholder').innerText(), /No terminal open in this tab/);
  for (let i = 0; i < 4; i++) {
    await page.waitForTimeout(500); // long enough for a page that would start something to have done it
    assert.deepEqual(await daemon.api('/api/sessions'), [], 'GET /api/sessions stays empty');
  }
  assert.deepEqual((await snapshot(page)).tabs, [], 'no tab was opened');
  await screenshot(page, '49-empty-page');
  await page.reload();
  await waitForSnapshot(page, (s) => s.handshake === 'ready', 'the reloaded page to connect');
  await button.waitFor();
  await settle(page);
  assert.deepEqual(await daemon.api('/api/sessions'), [], 'nor after a reload');

  // A person clicks "Open a terminal": exactly one session, in one live tab.
  await button.click();
  const s = await waitForLiveTab(page, 1);
  await settle(page);
  const listed = await daemon.api('/api/sessions');
  assert.deepEqual(listed.map((x) => x.id), [s.tabs[0].sessionId], 'the button started exactly one session');
  assert.equal((await snapshot(page)).tabs.length, 1);
  assert.equal(await button.isVisible(), false, 'the empty state is gone');

  // Removed elsewhere, its tab closes and the page is empty again: it waits; the shortcut starts one.
  limpet('rm', listed[0].id);
  await waitForSnapshot(page, (x) => x.tabs.length === 0, 'the tab to close');
  await button.waitFor();
  await settle(page);
  assert.deepEqual(await daemon.api('/api/sessions'), [], 'the emptied page started nothing');
  await page.keyboard.press('Control+Shift+Backquote');
  const again = await waitForLiveTab(page, 1);
  await settle(page);
  assert.deepEqual((await daemon.api('/api/sessions')).map((x) => x.id), [again.tabs[0].sessionId], 'Ctrl+Shift+` started exactly one');
  for (const id of sessionIds()) limpet('rm', id);
  await page.close();
});

test('a finished command runs once: two reloads and a daemon restart never run it again; only Restart does', async () => {
  const page = await newPage(browser);
  await page.goto(daemon.url);
  await openFirstTerminal(page);
  const file = join(scratch, 'ran.txt');
  await startCommand(page, `bash -c 'echo RAN >> ${file}'`);
  const exited = (s) => s.tabs.length === 2 && s.tabs[1].phase === 'exited';
  const first = await waitForSnapshot(page, exited, 'the command to finish');
  const tabId = first.tabs[1].tabId;
  await page.locator('[data-testid=tab-exited] button[data-action=restart]').waitFor();
  assert.match(await page.locator('[data-testid=tab-exited]').innerText(), /exited with code 0/);
  await page.click(`.tab[data-tab-id="${tabId}"] .tab-name`);
  assert.deepEqual(await seriousViolations(page, 'the exited offer'), [], 'axe on the exited tab and its offer');
  assert.deepEqual(linesOf(file), ['RAN']);
  const sessions = sessionIds();
  assert.equal(sessions.length, 2, 'a shell and the command');

  for (let i = 0; i < 2; i++) {
    await page.reload();
    await waitForSnapshot(page, (s) => s.handshake === 'ready' && exited(s) && s.tabs[1].tabId === tabId, `the exited tab after reload ${i + 1}`);
    await settle(page);
    assert.deepEqual(linesOf(file), ['RAN'], `reload ${i + 1} did not run the command again`);
  }

  await daemon.kill9();
  await waitForSnapshot(page, (s) => s.host !== 'online', 'the page to notice the daemon is gone');
  await daemon.start();
  await waitForSnapshot(page, (s) => s.host === 'online' && s.handshake === 'ready' && s.tabs.length === 2
    && s.tabs[1].tabId === tabId && s.tabs[1].phase !== 'opening' && s.tabs[1].phase !== 'reconnecting', 'the page to reconnect', 40_000);
  await settle(page);
  assert.deepEqual(linesOf(file), ['RAN'], 'the daemon restart did not run the command again');
  assert.deepEqual(sessionIds(), sessions, 'no session was started');
  await screenshot(page, '50-exited-after-restart');

  // Restart is a person asking: it runs the command again, once, in a new session bound to the tab.
  await page.click(`.tab[data-tab-id="${tabId}"] .tab-name`);
  await page.locator('[data-testid=tab-exited] button[data-action=restart]').click();
  await waitForSnapshot(page, (s) => s.tabs[1].phase === 'exited' && !sessions.includes(s.tabs[1].sessionId), 'the restarted command to finish');
  assert.deepEqual(linesOf(file), ['RAN', 'RAN']);
  assert.equal(sessionIds().length, 3);
  await page.close();
});

test('a session removed in another window (another page, then `limpet rm`) closes its tab here and is never started again', async () => {
  for (const id of sessionIds()) limpet('rm', id);
  const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
  const first = await newPage(browser, context);
  await first.goto(daemon.url);
  const a = await openFirstTerminal(first);
  const second = await newPage(browser, context);
  await second.goto(daemon.url);
  const b = await waitForLiveTab(second, 1);
  assert.equal(b.tabs[0].sessionId, a.tabs[0].sessionId, 'the second page shows the same session');

  // Another page closes it.
  await first.click(`.tab[data-tab-id="${a.tabs[0].tabId}"] [data-action=close]`);
  await first.click('.dialog button.danger');
  await waitForSnapshot(second, (s) => s.tabs.length === 0, 'the second page to close its tab');
  await second.locator('[data-testid=toast]', { hasText: 'closed elsewhere' }).waitFor();
  await screenshot(second, '51-closed-elsewhere');
  await settle(second);
  assert.deepEqual(sessionIds(), [], 'neither page started a session');
  await second.reload();
  await waitForSnapshot(second, (s) => s.handshake === 'ready' && s.sessions !== undefined, 'the reloaded page');
  await settle(second);
  assert.deepEqual(sessionIds(), [], 'the reloaded page started nothing');

  // `limpet rm` from a terminal, while both pages show the session.
  await first.click('[data-testid=new-terminal]');
  const made = await waitForSnapshot(first, (s) => s.tabs.length === 1 && s.tabs[0].phase === 'live', 'a new terminal');
  const id = made.tabs[0].sessionId;
  await second.locator(`.session[data-session-id="${id}"]`).click();
  await waitForSnapshot(second, (s) => s.tabs.length === 1 && s.tabs[0].sessionId === id && s.tabs[0].phase === 'live', 'the second page to open it');
  limpet('rm', id);
  // Both pages at once: each toast lasts 8 s, and a loaded machine can take that long over one page.
  await Promise.all([first, second].map(async (page) => {
    await waitForSnapshot(page, (s) => s.tabs.length === 0, 'the tab to close');
    await page.locator('[data-testid=toast]', { hasText: 'closed elsewhere' }).waitFor();
  }));
  await settle(second);
  assert.deepEqual(sessionIds(), [], 'no page started the removed session again');

  // Nor after a daemon restart, which makes both pages reconnect and plan again.
  await daemon.kill9();
  await daemon.start();
  for (const page of [first, second]) {
    await waitForSnapshot(page, (s) => s.host === 'online' && s.handshake === 'ready', 'the page to reconnect', 40_000);
  }
  await settle(second);
  assert.deepEqual(sessionIds(), []);
  assert.equal((await snapshot(first)).tabs.length, 0);
  await context.close();
});
