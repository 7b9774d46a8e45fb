// Restart the daemon with kill -9 on the same data root and port: the page reconnects by itself
// and typing works. With the embedded backend the session died with the daemon: the tab says so
// and offers Restart (it never starts one by itself); with a backend whose sessions survive, it is
// the same session.
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

  let after = await waitForSnapshot(page, (s) => s.host === 'online' && s.handshake === 'ready' && s.tabs.length === 1
    && (s.tabs[0].phase === 'live' || s.tabs[0].offer?.kind === 'recoverable'), 'the tab to reconnect', 40_000);
  const survived = after.tabs[0].sessionId === tab.sessionId;
  const backend = after.daemon.backend;
  const sessionsSurviveRestarts = backend !== 'embedded';
  if (sessionsSurviveRestarts) {
    assert.ok(survived, `backend ${backend}: the session survives the restart`);
    await waitForScreen(page, tab.tabId, 'before-restart', 'the old output');
  } else {
    assert.equal(after.tabs[0].offer?.kind, 'recoverable', 'embedded backend: the session died with the daemon and the tab says so');
    assert.equal((await daemon.api('/api/sessions')).length, 1, 'no session was started by the page');
    await page.locator('[data-testid=banner-degraded]').first().waitFor();
    await page.locator('[data-testid=tab-offer] button[data-action=revive]').click();
    after = await waitForSnapshot(page, (s) => s.tabs[0].phase === 'live', 'the revived session', 20_000);
    assert.equal(after.tabs[0].sessionId, tab.sessionId, 'Restart: continue revived the same session');
  }
  assert.equal(after.tabs[0].tabId, tab.tabId, 'the same tab');
  await typeInTerminal(page, 'echo after-restart\n');
  await waitForScreen(page, tab.tabId, (t) => t.split('\n').some((l) => l.trim() === 'after-restart'), 'typing after the restart', 20_000);
  await screenshot(page, '31-after-restart');
});
