// axe-core in the page: no serious or critical accessibility violation on any screen — the token
// screens, the workspace wide and narrow, every dialog.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { seriousViolations } from './support/axe.mjs';
import { launchBrowser, newPage, openFirstTerminal, openTerminalButton, waitForLiveTab, waitForSnapshot } from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';
import { press } from './support/focus.mjs';

let daemon;
let browser;
let page;

before(async () => {
  daemon = await new Daemon().start();
  browser = await launchBrowser();
  page = await newPage(browser);
});

after(async () => {
  await browser?.close();
  await daemon?.cleanup();
});

const assertClean = async (label) => assert.deepEqual(await seriousViolations(page, label), [], `axe on ${label}`);

test('the page without a token has no serious accessibility violation', async () => {
  await page.goto(daemon.origin);
  await page.locator('[data-testid=no-token]').waitFor();
  await assertClean('the no-token page');
});

test('the workspace, its dialogs and the narrow layout have no serious accessibility violation', async () => {
  await Promise.all([page.waitForEvent('load'), page.goto(daemon.url)]);
  await openTerminalButton(page).waitFor();
  await assertClean('the empty workspace ("No terminal open in this tab")');
  await openFirstTerminal(page);
  await page.click('[data-testid=new-terminal]');
  await waitForLiveTab(page, 2);
  await assertClean('the workspace');

  await press(page, 'Control+Shift+M');
  await press(page, 'F2');
  await page.locator('.dialog input[name=label]').waitFor();
  await assertClean('the rename dialog');
  await press(page, 'Escape');

  await page.click('[data-testid=new-command]');
  await assertClean('the new command dialog');
  await press(page, 'Escape');

  await page.click('[data-testid=shortcuts-button]');
  await assertClean('the keyboard shortcuts');
  await press(page, 'Escape');

  await press(page, 'Control+Shift+X');
  await assertClean('the close dialog');
  await press(page, 'Escape');

  await press(page, 'Control+Shift+F');
  await assertClean('the search bar');
  await press(page, 'Escape');

  await page.setViewportSize({ width: 600, height: 400 });
  await assertClean('the narrow workspace');
  await page.click('[data-testid=sidebar-toggle]');
  await assertClean('the narrow workspace with the sidebar open');
});

test('the wrong-token banner has no serious accessibility violation', async () => {
  const other = await newPage(browser);
  try {
    await other.goto(`${daemon.origin}/#token=${'0'.repeat(64)}`);
    await other.locator('[data-testid=banner-wrong-token]').waitFor();
    await waitForSnapshot(other, (s) => s.host === 'stopped', 'the page to stop retrying');
    assert.deepEqual(await seriousViolations(other, 'the wrong-token banner'), []);
  } finally {
    await other.close();
  }
});
