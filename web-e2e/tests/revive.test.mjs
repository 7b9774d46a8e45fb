// Revive: a session whose program was lost (here: the embedded backend's PTY, killed with the
// daemon by kill -9) is listed as recoverable with a badge; the open tab says so and offers
// "Restart: continue / new". Neither the reconnect nor a reload revives it: only a person's click
// does, and the revived session shows its history above the restore marker.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  launchBrowser, newPage, openFirstTerminal, screenshot, snapshot, typeInTerminal, waitForScreen, waitForSnapshot,
} from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';

let daemon;
let browser;
let page;

before(async () => {
  daemon = await new Daemon({ extraArgs: ['--backend', 'embedded'] }).start();
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(daemon.url);
  await openFirstTerminal(page);
});

after(async () => {
  await browser?.close();
  await daemon?.cleanup();
});

async function until(check, description, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for ${description}`);
}

test('a recoverable session shows its badge and Restart, is not revived by a reload, and Restart: continue revives it', async () => {
  const tab = (await snapshot(page)).tabs[0];
  await typeInTerminal(page, 'echo before-the-reboot\n');
  await waitForScreen(page, tab.tabId, (t) => t.split('\n').some((l) => l.trim() === 'before-the-reboot'), 'the first output');
  const journal = join(daemon.dataRoot, 'journal', `${tab.sessionId}.log`);
  await until(() => existsSync(journal) && readFileSync(journal, 'latin1').includes('before-the-reboot'), 'the journal to hold the output');

  await daemon.kill9();
  await daemon.start();
  await waitForSnapshot(page, (s) => s.handshake === 'ready' && s.tabs[0]?.offer?.kind === 'recoverable', 'the recoverable offer', 40_000);
  await page.locator(`[data-session-id="${tab.sessionId}"] [data-testid=recoverable-badge]`).waitFor();
  const offer = page.locator('[data-testid=tab-offer][data-offer=recoverable]');
  await offer.locator('button[data-action=revive]', { hasText: 'Restart: continue' }).waitFor();
  await offer.locator('button[data-action=revive_fresh]', { hasText: 'Restart: new' }).waitFor();
  await screenshot(page, '40-recoverable');

  await page.reload();
  await waitForSnapshot(page, (s) => s.handshake === 'ready' && s.tabs[0]?.offer?.kind === 'recoverable', 'the offer after a reload', 20_000);
  const listed = await daemon.api('/api/sessions');
  assert.equal(listed.length, 1, 'nothing was started');
  assert.equal(listed[0].state, 'recoverable', 'the reload revived nothing');

  await page.locator('[data-testid=tab-offer] button[data-action=revive]').click();
  const revived = await waitForSnapshot(page, (s) => s.tabs[0].phase === 'live', 'the revived session', 20_000);
  assert.equal(revived.tabs[0].sessionId, tab.sessionId, 'the same session, started again');
  await waitForScreen(page, tab.tabId, (t) => t.includes('before-the-reboot') && t.includes('the previous process ended'),
    'the history above the restore marker');
  await typeInTerminal(page, 'echo after-the-revive\n');
  await waitForScreen(page, tab.tabId, (t) => t.split('\n').some((l) => l.trim() === 'after-the-revive'), 'typing in the revived shell');
  assert.equal((await daemon.api(`/api/sessions/${tab.sessionId}`)).state, 'running');
  await page.locator('[data-testid=recoverable-badge]').waitFor({ state: 'detached' });
  await screenshot(page, '41-revived');
});
