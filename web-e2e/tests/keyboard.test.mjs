// Keyboard first: Tab reaches every control (top bar, sidebar, the session list, the tab bar, the
// terminal) with a visible focus; in the terminal Tab and Escape belong to the shell and
// Ctrl+Shift+M leaves it; arrows move within the tab bar and the session list; the page's
// Ctrl+Shift shortcuts work; after every dialog the focus is back in the terminal, so keys typed
// at once reach the shell.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, snapshot, waitForLiveTab, waitForPrompt, waitForScreen, waitForSnapshot } from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';
import { focused, press, waitForFocus } from './support/focus.mjs';

let daemon;
let browser;
let page;

// Two plain interactive shells (no profile: its start-up time is the machine's, not limpet's); a
// fresh page opens every running session in a tab of its own.
const PLAIN_BASH = ['bash', '--norc', '--noprofile', '-i'];

before(async () => {
  daemon = await new Daemon().start();
  for (const label of ['one', 'two']) {
    await daemon.api('/api/sessions', { method: 'POST', body: JSON.stringify({ command: PLAIN_BASH, label }) });
  }
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(daemon.url);
  await waitForLiveTab(page, 2);
});

after(async () => {
  await browser?.close();
  await daemon?.cleanup();
});

const inTerminalOf = (tabId) => (f) => f.area === 'terminal' && f.tabId === tabId;
const activeTabId = async () => (await snapshot(page)).activeTabId;

test('Tab walks every control in order, each named and with a visible focus, and ends in the terminal', async () => {
  // Start the sequential focus navigation at the very top of the page.
  await page.evaluate(() => {
    const start = Object.assign(document.createElement('span'), { tabIndex: -1 });
    document.body.prepend(start);
    start.focus();
    start.addEventListener('blur', () => start.remove());
  });
  const walk = [];
  for (let i = 0; i < 12; i++) {
    await press(page, 'Tab');
    const f = await focused(page);
    walk.push(f);
    if (f.area === 'terminal') break;
  }
  const stops = walk.map((f) => f.testid ?? f.area);
  assert.deepEqual(stops, ['sidebar-toggle', 'notify-button', 'shortcuts-button', 'more-button', 'new-terminal', 'new-command', 'session', 'tab', 'terminal'],
    'one stop per control, one for the session list and one for the tab bar');
  for (const f of walk) {
    assert.ok(f.name, `${f.testid ?? f.area} has an accessible name`);
    if (f.area !== 'terminal') assert.notEqual(f.outline, 'none', `${f.testid ?? f.area} shows where the focus is`);
  }
  assert.equal(walk.at(-2).tabId, await activeTabId(), 'the tab bar\'s stop is the active tab');
  await press(page, 'Control+Shift+M');
  await press(page, 'Shift+Tab');
  assert.equal((await focused(page)).area, 'session', 'Shift+Tab from the tab bar goes back to the session list');
});

test('in the terminal Tab and Escape go to the shell; Ctrl+Shift+M moves the focus to its tab', async () => {
  const tabId = await activeTabId();
  await press(page, 'Control+Shift+M');
  assert.equal((await focused(page)).area, 'tab');
  await press(page, 'Escape');
  await waitForFocus(page, inTerminalOf(tabId), 'Escape from the tab bar goes back to the terminal');
  await waitForPrompt(page, tabId);
  // Tab completes the command name: "ech" becomes "echo ".
  await page.keyboard.type('ech', { delay: 5 });
  await press(page, 'Tab');
  assert.ok(inTerminalOf(tabId)(await focused(page)), 'Tab keeps the focus in the terminal');
  await page.keyboard.type('tab-$((40+2)) escok', { delay: 5 });
  // Escape then b is readline's "back one word": X lands before "escok".
  await press(page, 'Escape');
  assert.ok(inTerminalOf(tabId)(await focused(page)), 'Escape keeps the focus in the terminal');
  await page.keyboard.type('bX\n', { delay: 5 });
  await waitForScreen(page, tabId, (t) => /\ntab-42 Xescok\s*(\n|$)/.test(t), 'the line as the shell edited it');

  await press(page, 'Control+Shift+M');
  const f = await focused(page);
  assert.equal(f.area, 'tab');
  assert.equal(f.tabId, tabId);
});

test('arrows move between tabs and sessions; Enter shows one and types into its terminal', async () => {
  const s = await snapshot(page);
  const [first, second] = s.tabs;
  await press(page, 'Control+Shift+M');
  assert.equal((await focused(page)).tabId, s.activeTabId);
  await press(page, 'Home');
  assert.equal((await focused(page)).tabId, first.tabId);
  await press(page, 'ArrowRight');
  assert.equal((await focused(page)).tabId, second.tabId);
  await press(page, 'ArrowRight');
  assert.equal((await focused(page)).tabId, first.tabId, 'the arrows wrap around');
  await press(page, 'Enter');
  await waitForSnapshot(page, (x) => x.activeTabId === first.tabId, 'the first tab to be shown');
  await waitForFocus(page, inTerminalOf(first.tabId), 'the focus in the first tab\'s terminal');
  await page.keyboard.type('echo first-$((1+1))\n', { delay: 5 });
  await waitForScreen(page, first.tabId, 'first-2', 'the typed command in the first tab');

  await press(page, 'Control+Shift+E');
  let f = await focused(page);
  assert.equal(f.area, 'session');
  assert.equal(f.sessionId, first.sessionId, 'the session list starts at the session on show');
  await press(page, 'End');
  f = await focused(page);
  assert.equal(f.sessionId, (await snapshot(page)).sessions.at(-1).id);
  await press(page, 'ArrowDown');
  assert.equal((await focused(page)).sessionId, (await snapshot(page)).sessions[0].id, 'the arrows wrap around');
  const target = (await snapshot(page)).sessions.find((x) => x.id === second.sessionId);
  while ((await focused(page)).sessionId !== target.id) await press(page, 'ArrowDown');
  await press(page, 'Enter');
  await waitForSnapshot(page, (x) => x.activeTabId === second.tabId, 'the session\'s tab to be shown');
  await waitForFocus(page, inTerminalOf(second.tabId), 'the focus in that tab\'s terminal');
});

test('Ctrl+Shift+` opens a terminal, Ctrl+Shift+PageUp/PageDown switch tabs, Ctrl+Shift+X closes after asking', async () => {
  const before = await snapshot(page);
  await press(page, 'Control+Shift+Backquote');
  const opened = await waitForSnapshot(page, (x) => x.tabs.length === before.tabs.length + 1 && x.tabs.at(-1).phase === 'live', 'a new live tab');
  const newTab = opened.tabs.at(-1).tabId;
  assert.equal(opened.activeTabId, newTab);
  await waitForFocus(page, inTerminalOf(newTab), 'the focus in the new terminal');

  await press(page, 'Control+Shift+PageUp');
  assert.equal(await activeTabId(), opened.tabs.at(-2).tabId);
  await waitForFocus(page, inTerminalOf(opened.tabs.at(-2).tabId), 'the focus follows the tab');
  await press(page, 'Control+Shift+PageDown');
  await press(page, 'Control+Shift+PageDown');
  assert.equal(await activeTabId(), opened.tabs[0].tabId, 'PageDown wraps to the first tab');
  await press(page, 'Control+Shift+PageUp');
  assert.equal(await activeTabId(), newTab);

  await press(page, 'Control+Shift+X');
  await page.locator('.dialog button.danger').waitFor();
  assert.equal((await focused(page)).area, 'dialog');
  await press(page, 'Enter');
  const closed = await waitForSnapshot(page, (x) => !x.tabs.some((t) => t.tabId === newTab), 'the tab to close');
  await waitForSnapshot(page, (x) => !x.sessions.some((z) => z.id === opened.tabs.at(-1).sessionId), 'its session to be gone');
  await waitForFocus(page, inTerminalOf(closed.activeTabId), 'the focus in the terminal now shown');
});

test('F2 renames; the focus returns to the terminal at once, so what is typed next reaches the shell', async () => {
  const tabId = await activeTabId();
  const sessionId = (await snapshot(page)).tabs.find((t) => t.tabId === tabId).sessionId;
  await press(page, 'Control+Shift+M');
  await press(page, 'F2');
  await page.locator('.dialog input[name=label]').waitFor();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('renamed-by-keys');
  await page.keyboard.press('Enter');
  await page.keyboard.type('echo after-rename-$((2+3))\n');
  await waitForScreen(page, tabId, 'after-rename-5', 'the command typed right after the rename');
  await waitForSnapshot(page, (x) => x.sessions.some((z) => z.id === sessionId && z.label === 'renamed-by-keys'), 'the rename on the daemon');
  assert.equal(await page.locator(`.tab[data-tab-id="${tabId}"] .tab-name`).innerText(), 'renamed-by-keys');
});

test('a cancelled dialog gives the focus back to where it was; the new-command dialog ends in the new terminal', async () => {
  await press(page, 'Control+Shift+M');
  const tab = await focused(page);
  await press(page, 'F2');
  await page.locator('.dialog').waitFor();
  await press(page, 'Escape');
  assert.equal(await page.locator('.dialog').count(), 0);
  assert.deepEqual([(await focused(page)).area, (await focused(page)).tabId], ['tab', tab.tabId]);

  await page.locator('[data-testid=new-command]').focus();
  await press(page, 'Enter');
  await page.locator('.dialog input[name=command]').waitFor();
  await page.keyboard.type(`sh -c 'read line; echo "got $line"; exec sleep 600'`);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.type('reader');
  await page.keyboard.press('Enter');
  const s = await waitForSnapshot(page, (x) => x.tabs.some((t) => t.name === 'reader' && t.phase === 'live'), 'the command tab');
  const reader = s.tabs.find((t) => t.name === 'reader').tabId;
  await waitForFocus(page, inTerminalOf(reader), 'the focus in the new command\'s terminal');
  await page.keyboard.type('typed-at-once\n');
  await waitForScreen(page, reader, 'got typed-at-once', 'the line the command read');
});

test('the shortcuts dialog lists the keyboard map', async () => {
  await page.click('[data-testid=shortcuts-button]');
  const text = await page.locator('.dialog').innerText();
  for (const keys of ['Ctrl+Shift+`', 'Ctrl+Shift+X', 'Ctrl+Shift+PageDown', 'Ctrl+Shift+M', 'Ctrl+Shift+E', 'F2', 'Escape']) {
    assert.ok(text.includes(keys), `the dialog names ${keys}`);
  }
  await press(page, 'Escape');
  assert.equal((await focused(page)).testid, 'shortcuts-button');
});
