// Open the UI with the token, get a terminal, type a command and see its output; start a command
// from the form, rename it, close it.
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  launchBrowser, newPage, openFirstTerminal, screenOf, screenshot, snapshot, typeInTerminal, waitForPrompt, waitForScreen, waitForSnapshot,
} from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';
import { repoRoot } from './support/paths.mjs';

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

test('opens with the token, strips it from the address bar, and "Open a terminal" starts a terminal', async () => {
  await page.goto(daemon.url);
  await waitForSnapshot(page, (x) => x.handshake === 'ready', 'the page to connect');
  assert.equal(new URL(page.url()).hash, '', 'the token is gone from the address bar');
  assert.equal(await page.evaluate(() => sessionStorage.getItem('limpet.token')), daemon.token);
  const s = await openFirstTerminal(page);
  assert.equal(s.handshake, 'ready');
  assert.ok(s.tabs[0].sessionId, 'the tab is bound to a daemon session');
  assert.equal(await page.locator('[data-testid=indicator]').getAttribute('data-tone'), 'ok');
  await screenshot(page, '01-first-terminal');
});

test('typing a command shows its output', async () => {
  const tabId = (await snapshot(page)).activeTabId;
  await waitForPrompt(page, tabId);
  await typeInTerminal(page, 'echo limpet-$((6*7))\n');
  await waitForScreen(page, tabId, 'limpet-42', 'the echo output');
  await screenshot(page, '02-command-output');
});

/**
 * For `ms`, the changes of the blink's class on the active terminal's rows, and the cursor's
 * colours and running animations in each half.
 */
const watchBlink = (ms) => page.evaluate((ms) => new Promise((resolve) => {
  const rows = document.querySelector('.term-host:not(.hidden) .xterm-rows');
  const seen = [];
  const look = () => {
    const cursor = rows.querySelector('.xterm-cursor');
    const style = cursor && getComputedStyle(cursor);
    return { off: rows.classList.contains('limpet-cursor-off'), background: style?.backgroundColor, color: style?.color,
      bar: cursor?.classList.contains('xterm-cursor-bar') ?? false, boxShadow: style?.boxShadow,
      animations: cursor?.getAnimations().length ?? -1, blinkClass: cursor?.classList.contains('xterm-cursor-blink') ?? false };
  };
  seen.push(look());
  const observer = new MutationObserver(() => seen.push(look()));
  observer.observe(rows, { attributes: true, attributeFilter: ['class'] });
  setTimeout(() => { observer.disconnect(); resolve(seen); }, ms);
}), ms);

const CURSOR_COLOUR = 'rgb(240, 198, 116)';

test('a blinking cursor a program asks for blinks with no animation running; a steady one stays', async () => {
  const tabId = (await snapshot(page)).activeTabId;
  await waitForPrompt(page, tabId);
  await typeInTerminal(page, "printf '\\033[1 q'; echo blink-$((1+1))\n");
  await waitForScreen(page, tabId, 'blink-2', 'the blinking cursor request');
  await page.waitForFunction(() => document.querySelector('.term-host:not(.hidden) .xterm-rows .xterm-cursor-blink'));
  const blinking = await watchBlink(1600);
  assert.ok(blinking.every((l) => l.blinkClass && l.animations === 0), `no CSS animation on the cursor: ${JSON.stringify(blinking)}`);
  const off = blinking.filter((l) => l.off);
  const on = blinking.filter((l) => !l.off);
  assert.ok(off.length >= 1 && on.length >= 2, `the cursor went off and on again: ${JSON.stringify(blinking)}`);
  // Each half looks as xterm.js' own blink draws it: the block in the cursor's colour, then the
  // character in it.
  assert.ok(on.every((l) => l.background === CURSOR_COLOUR), JSON.stringify(on));
  assert.ok(off.every((l) => l.background !== CURSOR_COLOUR && l.color === CURSOR_COLOUR), JSON.stringify(off));

  // Unfocused, xterm draws the cursor as an outline that does not blink: nothing turns it off; it
  // blinks again as soon as the terminal has the focus, output or not.
  await page.evaluate(() => document.activeElement?.blur());
  const unfocused = await watchBlink(1200);
  assert.ok(unfocused.every((l) => !l.off), `no blink while unfocused: ${JSON.stringify(unfocused)}`);
  await page.evaluate(() => document.querySelector('.term-host:not(.hidden) .xterm textarea').focus());
  const refocused = await watchBlink(1200);
  assert.ok(refocused.some((l) => l.off), `blinking again once focused: ${JSON.stringify(refocused)}`);

  await typeInTerminal(page, "printf '\\033[2 q'; echo steady-$((1+2))\n");
  await waitForScreen(page, tabId, 'steady-3', 'the steady cursor request');
  await page.waitForFunction(() => !document.querySelector('.term-host:not(.hidden) .xterm-rows .xterm-cursor-blink'));
  const steady = await watchBlink(1200);
  assert.deepEqual(steady.map((l) => [l.off, l.background]), [[false, CURSOR_COLOUR]], 'a steady cursor: shown, and nothing changes');
});

test('real vim that asks for a blinking bar in insert mode gets one, and a steady block back in normal mode', async () => {
  const tabId = (await snapshot(page)).activeTabId;
  await waitForPrompt(page, tabId);
  // vim sends t_SI entering insert mode and t_EI leaving it, as people configure it for their terminal.
  await typeInTerminal(page, `vim -n -i NONE -u NONE -c 'set showmode' -c 'let &t_SI="\\e[5 q"' -c 'let &t_EI="\\e[2 q"'\n`);
  await waitForScreen(page, tabId, (t) => t.includes('~'), 'vim');
  await page.keyboard.press('i');
  await waitForScreen(page, tabId, '-- INSERT --', 'insert mode');
  await page.waitForFunction(() => document.querySelector('.term-host:not(.hidden) .xterm-rows .xterm-cursor.xterm-cursor-blink.xterm-cursor-bar'));
  const insert = await watchBlink(1600);
  assert.ok(insert.every((l) => l.bar && l.animations === 0), JSON.stringify(insert));
  const off = insert.filter((l) => l.off);
  const on = insert.filter((l) => !l.off);
  assert.ok(off.length >= 1 && on.length >= 2, `the bar went off and on again: ${JSON.stringify(insert)}`);
  assert.ok(on.every((l) => l.boxShadow.includes(CURSOR_COLOUR)) && off.every((l) => l.boxShadow === 'none'), JSON.stringify(insert));

  await page.keyboard.press('Escape');
  await waitForScreen(page, tabId, (t) => !t.includes('-- INSERT --'), 'normal mode');
  await page.waitForFunction(() => !document.querySelector('.term-host:not(.hidden) .xterm-rows .xterm-cursor-blink'));
  const normal = await watchBlink(1200);
  assert.deepEqual(normal.map((l) => [l.off, l.bar, l.background]), [[false, false, CURSOR_COLOUR]], 'a steady block');
  await typeInTerminal(page, ':q!\n');
  await waitForPrompt(page, tabId);
});

test('new command form starts any argv in a directory; rename; close asks and removes it', async () => {
  await page.click('[data-testid=new-command]');
  await page.fill('input[name=command]', `sh -c 'echo "from $(pwd)"; exec sleep 600'`);
  await page.fill('input[name=cwd]', '/tmp');
  await page.fill('input[name=label]', 'sleeper');
  await page.click('.dialog button[type=submit]');
  const s = await waitForSnapshot(page, (x) => x.tabs.length === 2 && x.tabs[1].phase === 'live', 'the command tab');
  const tab = s.tabs[1];
  assert.equal(tab.name, 'sleeper');
  await waitForScreen(page, tab.tabId, 'from /tmp', 'the command output');
  await page.locator(`.session[data-session-id="${tab.sessionId}"]`).waitFor();
  assert.match(await page.locator(`.session[data-session-id="${tab.sessionId}"]`).innerText(), /sleeper[\s\S]*running[\s\S]*sleep 600[\s\S]*open in this tab/);

  await page.click(`.tab[data-tab-id="${tab.tabId}"] [data-action=rename]`);
  await page.fill('input[name=label]', 'renamed-sleeper');
  await page.click('.dialog button[type=submit]');
  await waitForSnapshot(page, (x) => x.sessions.some((z) => z.id === tab.sessionId && z.label === 'renamed-sleeper'), 'the rename on the daemon');
  await screenshot(page, '03-two-tabs-sidebar');
  await page.click('.tab:first-child .tab-name');
  await page.waitForTimeout(300);
  copyFileSync(await screenshot(page, 'ui'), join(repoRoot, 'docs', 'ui.png'));
  await page.click(`.tab[data-tab-id="${tab.tabId}"] .tab-name`);

  await page.click(`.tab[data-tab-id="${tab.tabId}"] [data-action=close]`);
  await page.click('.dialog button.danger');
  await waitForSnapshot(page, (x) => x.tabs.length === 1 && !x.sessions.some((z) => z.id === tab.sessionId), 'the closed session to disappear');
  const listed = await daemon.api('/api/sessions');
  assert.ok(!listed.some((z) => z.id === tab.sessionId), 'the daemon forgot the closed session');
});

test('search finds text in the scrollback', async () => {
  const tabId = (await snapshot(page)).activeTabId;
  await typeInTerminal(page, 'seq 1 300 | sed s/^/row-/\n');
  await waitForScreen(page, tabId, 'row-300', 'the last row');
  await page.keyboard.press('Control+Shift+F');
  await page.fill('[data-testid=search-input]', 'row-17');
  await page.keyboard.press('Enter');
  const selection = await page.evaluate(() => document.getSelection()?.toString() ?? '');
  const screen = await screenOf(page, tabId);
  assert.ok(screen.includes('row-17'));
  assert.equal(await page.locator('.search-status').innerText(), '', `a match was found (${selection})`);
  await page.keyboard.press('Escape');
});
