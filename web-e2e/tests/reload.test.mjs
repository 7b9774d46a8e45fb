// Reload: the same tabs, the same screens, and output produced while the page was away; vim
// survives a reload intact.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  countOccurrences, screenshot, snapshot, typeInTerminal, waitForLiveTab, waitForScreen, waitForSnapshot,
  waitForPrompt,
} from './support/browser.mjs';
import { closeFreshPage, openFreshPage } from './support/fresh-page.mjs';

let daemon;
let browser;
let page;

before(async () => {
  ({ daemon, browser, page } = await openFreshPage());
});

after(() => closeFreshPage({ browser, daemon }));

test('reload keeps tabs and screens, and shows output produced meanwhile exactly once', async () => {
  const before = await snapshot(page);
  const tabId = before.activeTabId;
  await waitForPrompt(page, tabId);
  await typeInTerminal(page, 'echo before-reload; (sleep 2; echo produced-while-away) &\n');
  await waitForScreen(page, tabId, (t) => t.split('\n').some((l) => l.trim() === 'before-reload'), 'the first line');
  await page.reload();
  const after = await waitForLiveTab(page, 1);
  assert.deepEqual(after.tabs.map((t) => [t.tabId, t.name, t.sessionId]), before.tabs.map((t) => [t.tabId, t.name, t.sessionId]));
  // The command line names it too: count the output itself (it may follow the next prompt on its row).
  const outputRows = (t) => countOccurrences(t, 'produced-while-away') - countOccurrences(t, 'echo produced-while-away');
  const screen = await waitForScreen(page, tabId, (t) => outputRows(t) > 0, 'output produced during the reload', 20_000);
  assert.equal(countOccurrences(screen, 'echo before-reload;'), 1, `the command line appears once:\n${screen}`);
  assert.equal(outputRows(screen), 1, `the output appears once:\n${screen}`);
  await screenshot(page, '10-after-reload');
});

test('vim in a tab survives a reload intact', async () => {
  await page.click('[data-testid=new-command]');
  await page.fill('input[name=command]', 'vim -u NONE -N');
  await page.fill('input[name=label]', 'vim');
  await page.click('.dialog button[type=submit]');
  const s = await waitForSnapshot(page, (x) => x.tabs.length === 2 && x.tabs[1].phase === 'live', 'the vim tab');
  const tabId = s.tabs[1].tabId;
  await waitForScreen(page, tabId, (t) => countOccurrences(t, '\n~') >= 5, 'vim to draw');
  await typeInTerminal(page, 'ilimpet keeps vim alive');
  await page.keyboard.press('Escape');
  const drawn = await waitForScreen(page, tabId, 'limpet keeps vim alive', 'the typed text');
  await screenshot(page, '11-vim-before-reload');
  await page.reload();
  await waitForLiveTab(page, 2);
  const restored = await waitForScreen(page, tabId, 'limpet keeps vim alive', 'vim after the reload');
  assert.equal((await snapshot(page)).activeTabId, tabId, 'the vim tab is still the active one');
  assert.ok(countOccurrences(restored, '\n~') >= 5, `vim's empty-line markers are back:\n${restored}`);
  assert.equal(countOccurrences(restored, 'limpet keeps vim alive'), 1);
  assert.equal(restored.split('\n').slice(0, 3).join('\n'), drawn.split('\n').slice(0, 3).join('\n'));
  await screenshot(page, '12-vim-after-reload');
  await typeInTerminal(page, 'o second line');
  await page.keyboard.press('Escape');
  await waitForScreen(page, tabId, 'second line', 'typing into vim after the reload');
  await typeInTerminal(page, ':q!\n');
  await waitForSnapshot(page, (x) => x.tabs.find((t) => t.tabId === tabId)?.phase === 'exited', 'vim to exit');
  await page.locator('[data-testid=tab-exited]').waitFor();
});
