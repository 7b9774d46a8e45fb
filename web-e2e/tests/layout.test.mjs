// Narrow windows: at 600 px the sidebar starts collapsed (a toggle shows it over the terminal),
// the active tab stays in view when the tabs overflow the bar, and scrollbars are dark. Takes
// docs/ui-narrow.png (600×400).
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, openFirstTerminal, screenshot, snapshot, waitForScreen, waitForSnapshot } from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';
import { focused, press } from './support/focus.mjs';
import { repoRoot } from './support/paths.mjs';

let daemon;
let browser;
let page;

before(async () => {
  daemon = await new Daemon().start();
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 600, height: 400 } });
  page = await newPage(browser, context);
  await page.goto(daemon.url);
  await openFirstTerminal(page);
});

after(async () => {
  await browser?.close();
  await daemon?.cleanup();
});

const sidebarShown = () => page.locator('.sidebar').isVisible();
const toggleExpanded = () => page.locator('[data-testid=sidebar-toggle]').getAttribute('aria-expanded');
const terminalWidth = () => page.evaluate(() => document.querySelector('.terminal-stack').getBoundingClientRect().width);

/** Whether the active tab lies wholly inside the tab bar's visible box. */
const activeTabInView = () => page.evaluate(() => {
  const bar = document.querySelector('.tabbar').getBoundingClientRect();
  const tab = document.querySelector('.tab.active').getBoundingClientRect();
  return tab.left >= bar.left - 1 && tab.right <= bar.right + 1;
});

test('at 600 px the sidebar starts collapsed and the terminal has the whole width', async () => {
  assert.equal(await sidebarShown(), false);
  assert.equal(await toggleExpanded(), 'false');
  assert.ok(await terminalWidth() >= 598, `the terminal spans the window (${await terminalWidth()} px)`);
});

test('the toggle shows the sidebar over the terminal; opening a session or Escape closes it', async () => {
  const width = await terminalWidth();
  await page.click('[data-testid=sidebar-toggle]');
  assert.equal(await sidebarShown(), true);
  assert.equal(await toggleExpanded(), 'true');
  assert.equal(await terminalWidth(), width, 'it lies over the terminal, which keeps its size');
  const sessionId = (await snapshot(page)).tabs[0].sessionId;
  await page.click(`.session[data-session-id="${sessionId}"]`);
  assert.equal(await sidebarShown(), false, 'opening a session closes it');
  assert.equal((await focused(page)).area, 'terminal');

  await press(page, 'Control+Shift+E');
  assert.equal(await sidebarShown(), true, 'Ctrl+Shift+E opens it to focus the sessions');
  assert.equal((await focused(page)).area, 'session');
  await press(page, 'Escape');
  assert.equal(await sidebarShown(), false);
  assert.equal((await focused(page)).area, 'terminal');
});

test('a session pressed while the list is drawn anew opens when the press ends', async () => {
  await page.click('[data-testid=sidebar-toggle]');
  await page.locator('.sidebar').waitFor({ state: 'visible' });
  const sessionId = (await snapshot(page)).tabs[0].sessionId;
  const box = await page.locator(`.session[data-session-id="${sessionId}"]`).boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  // A session started elsewhere: the list changes while the button is held down.
  const other = await daemon.api('/api/sessions', { method: 'POST', body: JSON.stringify({ command: ['sleep', '600'] }) });
  await waitForSnapshot(page, (x) => x.sessions.some((row) => row.id === other.id), 'the new session known to the page');
  await page.mouse.up();
  await page.locator('.sidebar').waitFor({ state: 'hidden', timeout: 5000 });
  assert.equal((await snapshot(page)).activeTabId, (await snapshot(page)).tabs[0].tabId, 'the pressed session is the one shown');
  await page.click('[data-testid=sidebar-toggle]');
  await page.locator(`.session[data-session-id="${other.id}"]`).waitFor({ state: 'attached', timeout: 5000 });
  await page.click('[data-testid=sidebar-toggle]');
  await daemon.api(`/api/sessions/${other.id}`, { method: 'DELETE' });
});

test('the active tab stays in view when the tabs overflow the bar', async () => {
  for (let i = 0; i < 6; i++) await press(page, 'Control+Shift+Backquote');
  const s = await waitForSnapshot(page, (x) => x.tabs.length === 7 && x.tabs.every((t) => t.phase === 'live'), 'seven live tabs');
  const overflow = await page.evaluate(() => { const bar = document.querySelector('.tabbar'); return bar.scrollWidth > bar.clientWidth; });
  assert.ok(overflow, 'the tabs are wider than the bar');
  assert.equal(s.activeTabId, s.tabs.at(-1).tabId);
  assert.ok(await activeTabInView(), 'the new, last tab is in view');
  await press(page, 'Control+Shift+PageDown');
  assert.equal((await snapshot(page)).activeTabId, s.tabs[0].tabId);
  assert.ok(await activeTabInView(), 'after wrapping to the first tab it is in view');
  await press(page, 'Control+Shift+PageUp');
  assert.ok(await activeTabInView(), 'and back to the last one');
});

test('scrollbars are dark', async () => {
  const styles = await page.evaluate(() => ({
    scheme: getComputedStyle(document.documentElement).colorScheme,
    tabbar: getComputedStyle(document.querySelector('.tabbar')).scrollbarColor,
    sessions: getComputedStyle(document.querySelector('.session-list')).scrollbarColor,
  }));
  assert.equal(styles.scheme, 'dark');
  assert.notEqual(styles.tabbar, 'auto');
  assert.notEqual(styles.sessions, 'auto');
});

test('widening the window past 800 px shows the sidebar again; narrowing hides it', async () => {
  await page.setViewportSize({ width: 1000, height: 600 });
  // The page hears of the new size at its next frame, which a loaded machine may not have drawn yet.
  await page.waitForFunction(() => !document.querySelector('.app').classList.contains('narrow'));
  assert.equal(await sidebarShown(), true);
  await page.setViewportSize({ width: 600, height: 400 });
  await page.waitForFunction(() => document.querySelector('.app').classList.contains('narrow'));
  assert.equal(await sidebarShown(), false);
});

test('docs/ui-narrow.png: the UI at 600×400', async () => {
  await page.click('[data-testid=sidebar-toggle]');
  await page.click('[data-testid=new-command]');
  await page.fill('input[name=command]', `sh -c 'printf "%s\\n" "limpet in a 600 px window:" "  ☰ shows the sessions (Ctrl+Shift+E)" "  Ctrl+Shift+PageUp/PageDown switch tabs" "  Ctrl+Shift+M leaves the terminal"; exec sleep 600'`);
  await page.fill('input[name=label]', 'notes');
  await page.click('.dialog button[type=submit]');
  const s = await waitForSnapshot(page, (x) => x.tabs.some((t) => t.name === 'notes' && t.phase === 'live'), 'the notes tab');
  const tabId = s.tabs.find((t) => t.name === 'notes').tabId;
  await waitForScreen(page, tabId, 'leaves the terminal', 'the notes');
  assert.equal(await sidebarShown(), false, 'starting a command from the collapsed sidebar closes it');
  assert.ok(await activeTabInView());
  await page.waitForTimeout(300);
  copyFileSync(await screenshot(page, 'ui-narrow'), join(repoRoot, 'docs', 'ui-narrow.png'));
});
