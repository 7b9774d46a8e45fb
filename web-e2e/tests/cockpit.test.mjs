// Which agent needs me, on every screen: 15 sessions, three made to wait through hook reports (the
// daemon's activity API, as `limpet hook` calls it); they are on top of the list with their full
// names and the line they wait on, counted in the title and the icon; a notification names the
// session and its line and opens it when clicked; answering one clears its badge. Each tab says in
// words what its agent does. On a phone (390×844, touch): a key row sends Esc, Tab, Ctrl-C, the
// arrows and sticky Ctrl (checked by a program that prints the bytes it receives), touch scrolls the
// scrollback, the top bar shows the status. No sideways scroll with 1, 15 and 50 tabs; a banner
// never changes the page's height. axe-core on each screen. Takes docs/ui-attention.png and
// docs/ui-phone.png. One daemon and one browser for all of it.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { seriousViolations } from './support/axe.mjs';
import { launchBrowser, newPage, screenshot, snapshot, waitForScreen, waitForSnapshot } from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';
import { limpetCommand, repoRoot } from './support/paths.mjs';

let daemon;
let browser;
let desktop;
let phone;
const ids = {};

const PLAIN_BASH = ['bash', '--norc', '--noprofile', '-i'];
const quote = (x) => `'${x.replaceAll("'", "'\\''")}'`;
/** The real `limpet hook STATE`, run inside a session (it finds its session and daemon in the environment limpet gives it). */
const hook = (state) => `${limpetCommand().map(quote).join(' ')} hook ${state} || echo hook-failed`;
// A program that asks and waits, as an agent's prompt does: its last line is what it waits on.
const asking = (lines, report = '') => ['sh', '-c', `printf '${lines.join('\\n')} '; ${report} read a; echo "you said $a"; exec sleep 600`];
const WAITERS = {
  approval: { label: 'agent: fix the flaky billing migration test',
    command: asking(['Edit billing/migrate.py', 'Do you want to make this edit? 1. Yes 2. No'], `${hook('pending_approval')};`),
    line: 'Do you want to make this edit? 1. Yes 2. No', activity: 'pending_approval' },
  review: { label: 'agent: review the payments API for the 3.2 release', command: asking(['Review done.', '> What should I look at next?']),
    line: '> What should I look at next?', activity: 'waiting_input' },
  deploy: { label: 'deploy staging', command: asking(['12 files changed', 'Continue? [y/N]']), line: 'Continue? [y/N]', activity: 'waiting_input' },
};

const spawn = (body) => daemon.api('/api/sessions', { method: 'POST', body: JSON.stringify(body) });
const report = (id, activity) => daemon.api(`/api/sessions/${id}/activity`, { method: 'POST', body: JSON.stringify({ activity }) });
const noSidewaysScroll = (page) => page.evaluate(() => ({
  page: document.scrollingElement.scrollWidth, window: innerWidth, body: document.body.scrollWidth,
}));
const pageBox = (page) => page.evaluate(() => ({
  scrollHeight: document.scrollingElement.scrollHeight, innerHeight, topbar: document.querySelector('.topbar').getBoundingClientRect().top,
  terminal: document.querySelector('.terminal-stack').getBoundingClientRect().height,
}));
const needsYou = (page) => page.locator('[data-group=needs-you] button.session');
const rowOf = (page, id) => page.locator(`button.session[data-session-id="${id}"]`);

/** The screen as the daemon's screen model has it: it waits until `text` is there. */
async function awaitCapture(id, text) {
  for (let i = 0; i < 200; i++) {
    const { text: screen } = await daemon.api(`/api/sessions/${id}/capture`);
    if (screen.includes(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`session ${id} never showed ${text}`);
}

/** A page whose notifications are recorded with their click handlers (headless Chromium shows none). */
async function recordNotifications(context) {
  await context.addInitScript(() => {
    window.shown = [];
    window.Notification = class {
      static permission = 'default';
      static async requestPermission() { window.Notification.permission = 'granted'; return 'granted'; }
      constructor(title, options) { this.title = title; window.shown.push({ title, body: options?.body, tag: options?.tag, notification: this }); }
      close() {}
    };
  });
}

before(async () => {
  daemon = await new Daemon().start();
  ids.first = (await spawn({ command: PLAIN_BASH, label: 'first' })).id;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await daemon?.cleanup();
});

test('with one tab, neither a desktop nor a phone page scrolls sideways', async () => {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const context = await browser.newContext({ viewport, hasTouch: viewport.width < 800 });
    const page = await newPage(browser, context);
    await page.goto(daemon.url);
    await waitForSnapshot(page, (s) => s.tabs.length === 1 && s.tabs[0].phase === 'live', 'one live tab');
    const w = await noSidewaysScroll(page);
    assert.ok(w.page <= w.window && w.body <= w.window, `${viewport.width} px: ${JSON.stringify(w)}`);
    await context.close();
  }
});

test('15 sessions, three waiting: they are on top, approval first, named in full with the line they wait on, counted in the title and the icon', async () => {
  const dirs = join(daemon.dataRoot, 'src');
  for (const name of ['api', 'web']) mkdirSync(join(dirs, name), { recursive: true });
  // Two shells that set no title: told apart by their directory.
  ids.shellApi = (await spawn({ command: ['sh'], cwd: join(dirs, 'api') })).id;
  ids.shellWeb = (await spawn({ command: ['sh'], cwd: join(dirs, 'web') })).id;
  for (const [key, w] of Object.entries(WAITERS)) ids[key] = (await spawn({ command: w.command, label: w.label })).id;
  ids.idle = (await spawn({ command: ['sleep', '600'], label: 'worker 1' })).id;
  for (let i = 1; i < 8; i++) await spawn({ command: ['sleep', '600'], label: `worker ${i + 1}` });
  // Prints each byte it receives as <hex>: raw mode (no signal keys, no CR translation, no echo), a byte at a time.
  ids.keys = (await spawn({ command: ['sh', '-c',
    'stty raw -echo; echo keys-ready; while :; do b=$(dd bs=1 count=1 2>/dev/null | od -An -tx1); printf "<%s>" $b; done'], label: 'keys' })).id;
  // Two report before the page opens (it shows them from the list), one while it is open (an event).
  for (const key of ['approval', 'review', 'deploy']) await awaitCapture(ids[key], WAITERS[key].line.slice(0, 10));
  await report(ids.review, 'waiting_input');
  for (let i = 0; (await daemon.api(`/api/sessions/${ids.approval}`)).activity !== 'pending_approval'; i++) {
    assert.ok(i < 300, 'the hook inside the session reported');
    await new Promise((r) => setTimeout(r, 100));
  }

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await recordNotifications(context);
  desktop = await newPage(browser, context);
  await desktop.goto(daemon.url);
  await waitForSnapshot(desktop, (s) => s.tabs.length === 15 && s.tabs.every((t) => t.phase === 'live'), '15 live tabs', 60_000);
  await report(ids.deploy, 'waiting_input');

  await desktop.waitForFunction(() => document.querySelectorAll('[data-group=needs-you] button.session').length === 3, null, { timeout: 15_000 });
  const rows = await needsYou(desktop).evaluateAll((buttons) => buttons.map((b) => ({
    id: b.dataset.sessionId, activity: b.dataset.activity,
    name: b.querySelector('[data-testid=session-name]').textContent,
    cut: b.querySelector('[data-testid=session-name]').scrollWidth > b.querySelector('[data-testid=session-name]').clientWidth,
  })));
  assert.deepEqual(rows.map((r) => r.id), [ids.approval, ids.review, ids.deploy], 'approval first, then the waiting ones in list order');
  for (const [row, key] of rows.map((r, i) => [r, ['approval', 'review', 'deploy'][i]])) {
    assert.equal(row.name, WAITERS[key].label, 'the full name');
    assert.equal(row.cut, false, `${row.name} is not cut`);
    assert.equal(row.activity, WAITERS[key].activity);
  }
  for (const key of ['approval', 'review', 'deploy']) {
    await rowOf(desktop, ids[key]).locator('[data-testid=waiting-line]', { hasText: WAITERS[key].line }).waitFor({ timeout: 15_000 });
  }
  assert.equal(await desktop.title(), '(3) limpet');
  assert.match(decodeURIComponent(await desktop.locator('link[rel~=icon]').getAttribute('href')), />3</, 'the icon carries the count');
  const names = await desktop.evaluate((s) => s.map((id) => document.querySelector(`button.session[data-session-id="${id}"] [data-testid=session-name]`).textContent),
    [ids.shellApi, ids.shellWeb]);
  assert.deepEqual(names, ['sh · api', 'sh · web'], 'two shells told apart by their directory');

  // Each tab says what its agent does, as a word and a colour.
  const tab = (id) => desktop.locator(`.tab[data-session-id="${id}"] [data-testid=tab-activity]`);
  await report(ids.idle, 'working');
  await tab(ids.idle).waitFor({ timeout: 15_000 });
  assert.equal((await tab(ids.approval).innerText()).trim(), 'needs approval');
  assert.equal((await tab(ids.review).innerText()).trim(), 'waiting for you');
  assert.equal((await tab(ids.idle).innerText()).trim(), 'working');
  const colours = await desktop.evaluate((list) => list.map((id) => getComputedStyle(document.querySelector(`.tab[data-session-id="${id}"] [data-testid=tab-activity]`)).color),
    [ids.approval, ids.review, ids.idle]);
  assert.equal(new Set(colours).size, 3, 'each state has its own colour besides its word');
  const w = await noSidewaysScroll(desktop);
  assert.ok(w.page <= w.window && w.body <= w.window, `15 tabs at 1280 px: ${JSON.stringify(w)}`);
  assert.deepEqual(await seriousViolations(desktop, 'the attention view'), [], 'axe on the attention view');
  await rowOf(desktop, ids.approval).click();
  await desktop.waitForTimeout(300);
  copyFileSync(await screenshot(desktop, 'ui-attention'), join(repoRoot, 'docs', 'ui-attention.png'));
});

test('a notification names the session and the line it waits on; clicking it opens that session', async () => {
  await desktop.click('[data-testid=notify-button]');
  await desktop.waitForFunction(() => document.querySelector('[data-testid=notify-button]')?.getAttribute('aria-pressed') === 'true');
  assert.equal(await desktop.evaluate(() => window.shown.length), 0, 'nothing about what already waits');
  await report(ids.review, 'working');
  await desktop.waitForFunction(() => document.querySelectorAll('[data-group=needs-you] button.session').length === 2);
  await report(ids.review, 'waiting_input');
  const label = WAITERS.review.label;
  await desktop.waitForFunction((line) => window.shown.some((n) => n.body === line), WAITERS.review.line, { timeout: 15_000 });
  const shown = await desktop.evaluate(() => window.shown.map(({ title, body }) => ({ title, body })));
  assert.deepEqual(shown.at(-1), { title: `${label}: waiting for you`, body: WAITERS.review.line });
  const before = (await snapshot(desktop)).activeTabId;
  await desktop.evaluate(() => window.shown.at(-1).notification.onclick());
  const s = await waitForSnapshot(desktop, (x) => x.tabs.find((t) => t.tabId === x.activeTabId)?.sessionId === ids.review, 'the session on show');
  assert.notEqual(s.activeTabId, before);
});

test('answering a waiting session in its terminal clears its badge and the count', async () => {
  await rowOf(desktop, ids.deploy).click();
  const s = await waitForSnapshot(desktop, (x) => x.tabs.find((t) => t.tabId === x.activeTabId)?.sessionId === ids.deploy, 'the deploy tab');
  await desktop.keyboard.type('y\n', { delay: 20 });
  await waitForScreen(desktop, s.activeTabId, 'you said y', 'the answer reached the program');
  await desktop.waitForFunction((id) => !document.querySelector(`[data-group=needs-you] button.session[data-session-id="${id}"]`), ids.deploy,
    { timeout: 15_000 });
  assert.equal(await rowOf(desktop, ids.deploy).getAttribute('data-activity'), 'working');
  await desktop.waitForFunction(() => document.title === '(2) limpet');
});

test('a banner lies over the page: the page keeps its height and the top bar stays', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true });
  const page = await newPage(browser, context);
  await page.goto(daemon.url);
  await waitForSnapshot(page, (s) => s.tabs.length >= 15 && s.tabs.every((t) => t.phase === 'live'), 'live tabs', 60_000);
  const before = await pageBox(page);
  await context.setOffline(true);
  await page.locator('[data-testid=banners] .banner').first().waitFor({ timeout: 30_000 });
  await page.locator('.xterm-helper-textarea').first().focus().catch(() => {});
  const during = await pageBox(page);
  assert.equal(during.scrollHeight, during.innerHeight, 'the page does not grow');
  assert.equal(during.topbar, before.topbar, 'the top bar stays where it was');
  assert.equal(during.terminal, before.terminal, 'the terminal keeps its height');
  const banner = page.locator('[data-testid=banners] .banner').first();
  assert.equal(await banner.getAttribute('data-part'), 'network', 'it names the part that is down: this device has no network');
  assert.match(await banner.innerText(), /offline/);
  await context.setOffline(false);
  await context.close();
});

test('the phone: the key row sends Esc, Tab, Ctrl-C, arrows, Enter and a sticky Ctrl to the program', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  phone = await newPage(browser, context);
  await phone.goto(daemon.url);
  await waitForSnapshot(phone, (s) => s.tabs.length >= 15 && s.tabs.every((t) => t.phase === 'live'), 'live tabs', 60_000);
  await phone.tap('[data-testid=sidebar-toggle]');
  await rowOf(phone, ids.keys).tap();
  const s = await waitForSnapshot(phone, (x) => x.tabs.find((t) => t.tabId === x.activeTabId)?.sessionId === ids.keys, 'the keys tab');
  await waitForScreen(phone, s.activeTabId, 'keys-ready', 'the key reporter');
  await phone.locator('.term-host:not(.hidden) .xterm').tap();
  for (const key of ['Escape', 'Tab', 'CtrlC', 'ArrowUp', 'ArrowLeft', 'BackTab', 'Enter']) await phone.tap(`[data-testid=key-row] [data-key=${key}]`);
  await phone.tap('[data-testid=key-row] [data-key=ctrl]');
  assert.equal(await phone.locator('[data-testid=key-row] [data-key=ctrl]').getAttribute('aria-pressed'), 'true', 'Ctrl stays down for the next key');
  await phone.keyboard.type('d');
  assert.equal(await phone.locator('[data-testid=key-row] [data-key=ctrl]').getAttribute('aria-pressed'), 'false', 'and lets go after it');
  const expected = '<1b><09><03><1b><5b><41><1b><5b><44><1b><5b><5a><0d><04>';
  // The narrow terminal wraps the line: compare without the line ends.
  await waitForScreen(phone, s.activeTabId, (t) => t.replace(/\n/g, '').includes(expected), 'every key as the program received it');
  const focusedInTerminal = await phone.evaluate(() => !!document.activeElement?.closest('.xterm'));
  assert.ok(focusedInTerminal, 'the row never takes the focus (the on-screen keyboard stays up)');
});

test('the phone: the top bar shows the status in full, the terminal spans the width, no sideways scroll with 15 tabs', async () => {
  const status = await phone.evaluate(() => {
    const e = document.querySelector('[data-testid=indicator]');
    return { text: e.textContent, cut: e.scrollWidth > e.clientWidth, tokenShown: !!document.querySelector('.topbar [data-testid=token-button]') };
  });
  assert.equal(status.text, 'connected');
  assert.equal(status.cut, false);
  assert.equal(status.tokenShown, false, '"Forget token" is behind More, not in the top bar');
  const width = await phone.evaluate(() => ({
    host: document.querySelector('.term-host:not(.hidden)').getBoundingClientRect().width,
    cells: document.querySelector('.term-host:not(.hidden) .xterm-screen').getBoundingClientRect().width,
  }));
  assert.equal(width.host, 390, 'the terminal has the whole width (no sidebar, no gutter)');
  assert.ok(width.cells >= 390 - 30, `its columns fill it but for the scrollbar (${width.cells} px)`);
  const w = await noSidewaysScroll(phone);
  assert.ok(w.page <= w.window && w.body <= w.window, `15 tabs at 390 px: ${JSON.stringify(w)}`);
  assert.deepEqual(await seriousViolations(phone, 'the phone'), [], 'axe on the phone');
  await phone.tap('[data-testid=more-button]');
  await phone.locator('[data-testid=token-button]').waitFor();
  assert.deepEqual(await seriousViolations(phone, 'the phone: More'), [], 'axe on the phone\'s More');
  await phone.keyboard.press('Escape');
});

test('the phone: a finger scrolls the scrollback', async () => {
  ids.long = (await spawn({ command: ['sh', '-c', 'seq 1 400; exec sleep 600'], label: 'long output' })).id;
  await phone.tap('[data-testid=sidebar-toggle]');
  await rowOf(phone, ids.long).tap();
  const s = await waitForSnapshot(phone, (x) => x.tabs.find((t) => t.tabId === x.activeTabId)?.sessionId === ids.long, 'the long tab');
  await waitForScreen(phone, s.activeTabId, '400', 'the output');
  const top = () => phone.evaluate((id) => window.limpet.viewportTop(id), s.activeTabId);
  const before = await top();
  assert.ok(before > 0, 'the output is longer than the screen');
  const box = await phone.locator('.term-host:not(.hidden) .xterm-screen').boundingBox();
  const cdp = await phone.context().newCDPSession(phone);
  const x = box.x + box.width / 2;
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y: box.y + 100 }] });
  for (let y = 110; y <= 500; y += 30) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y: box.y + y }] });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await phone.waitForFunction(([id, b]) => window.limpet.viewportTop(id) < b, [s.activeTabId, before], { timeout: 5_000 });
  assert.ok(await top() < before, 'dragging down shows earlier lines');
  // The screenshot: an approval on show, with the key row to answer it.
  await phone.tap('[data-testid=sidebar-toggle]');
  await rowOf(phone, ids.approval).tap();
  await waitForSnapshot(phone, (x) => x.tabs.find((t) => t.tabId === x.activeTabId)?.sessionId === ids.approval, 'the approval tab');
  await phone.waitForTimeout(300);
  copyFileSync(await screenshot(phone, 'ui-phone'), join(repoRoot, 'docs', 'ui-phone.png'));
});

test('with 50 tabs, a phone page does not scroll sideways', async () => {
  await desktop.context().close();
  await phone.context().close();
  const have = (await daemon.api('/api/sessions')).filter((x) => x.state === 'running').length;
  for (let i = have; i < 50; i++) await spawn({ command: ['sleep', '600'], label: `batch ${i}` });
  // The narrowest page is the one that could overflow; a wide one was checked with 15 tabs.
  for (const viewport of [{ width: 390, height: 844 }]) {
    const context = await browser.newContext({ viewport, hasTouch: viewport.width < 800 });
    const page = await newPage(browser, context);
    await page.goto(daemon.url);
    await waitForSnapshot(page, (x) => x.tabs.length >= 50, '50 tabs', 60_000);
    const w = await noSidewaysScroll(page);
    assert.ok(w.page <= w.window && w.body <= w.window, `50 tabs at ${viewport.width} px: ${JSON.stringify(w)}`);
    await context.close();
  }
  rmSync(join(daemon.dataRoot, 'src'), { recursive: true, force: true });
});
