// A flood (`yes`) must never freeze the page: the tab detaches above its unrendered high-water
// mark and re-attaches from where it is once xterm has caught up.
import assert from 'node:assert/strict';
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
