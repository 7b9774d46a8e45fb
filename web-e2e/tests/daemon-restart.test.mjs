// Restart the daemon with kill -9 on the same data root and port: the page reconnects by itself
// and typing works. With the embedded backend the session died with the daemon, so the tab must
// say so and hold a fresh one; with a backend whose sessions survive, it is the same session.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  screenshot, snapshot, typeInTerminal, waitForScreen, waitForSnapshot,
} from './support/browser.mjs';
import { closeFreshPage, openFreshPage } from './support/fresh-page.mjs';

let daemon;
let browser;
let page;

before(async () => {
  ({ daemon, browser, page } = await openFreshPage());
});

after(() => closeFreshPage({ browser, daemon }));

test('kill -9 and restart: tabs reconnect and typing works', async () => {
  const before = await snapshot(page);
  const tab = before.tabs[0];
  await typeInTerminal(page, 'echo before-restart\n');
  await waitForScreen(page, tab.tabId, (t) => t.split('\n').some((l) => l.trim() === 'before-restart'), 'the first output');

  await daemon.kill9();
  await waitForSnapshot(page, (s) => s.host !== 'online', 'the page to notice the daemon is gone');
  await page.locator('[data-testid=indicator][data-tone=down]').waitFor({ timeout: 10_000 });
  await screenshot(page, '30-daemon-down');
  await daemon.start();

  const after = await waitForSnapshot(page, (s) => s.host === 'online' && s.handshake === 'ready' && s.tabs.length === 1 && s.tabs[0].phase === 'live',
    'the tab to reconnect', 40_000);
  const survived = after.tabs[0].sessionId === tab.sessionId;
  const backend = after.daemon.backend;
  const sessionsSurviveRestarts = backend !== 'embedded';
  if (sessionsSurviveRestarts) {
    assert.ok(survived, `backend ${backend}: the session survives the restart`);
    await waitForScreen(page, tab.tabId, 'before-restart', 'the old output');
  } else {
    assert.ok(!survived, 'embedded backend: the old session died with the daemon, the tab holds a new one');
    assert.match(after.tabs[0].notice ?? '', /gone|new one/);
    await page.locator('[data-testid=tab-notice]').waitFor();
    await page.locator('[data-testid=banner-degraded]').first().waitFor();
  }
  assert.equal(after.tabs[0].tabId, tab.tabId, 'the same tab');
  await typeInTerminal(page, 'echo after-restart\n');
  await waitForScreen(page, tab.tabId, (t) => t.split('\n').some((l) => l.trim() === 'after-restart'), 'typing after the restart', 20_000);
  await screenshot(page, '31-after-restart');
});
