// Issue 14: three sessions whose programs report their state through the real `limpet hook`
// (finding their session and daemon through the environment limpet gives every session); the page
// shows which one waits, on its tab and in the list, as a word and a colour; a later report moves it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, screenshot, waitForLiveTab } from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';
import { javaBinary, limpetJar } from './support/paths.mjs';

let daemon;
let browser;
let page;
const ids = {};

const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;
const hook = (state) => `${quote(javaBinary())} -jar ${quote(limpetJar())} hook ${state}`;

before(async () => {
  daemon = await new Daemon().start();
  for (const [label, state] of [['agent-working', 'working'], ['agent-waiting', 'waiting_input'], ['agent-asking', 'pending_approval']]) {
    const s = await daemon.api('/api/sessions', {
      method: 'POST', body: JSON.stringify({ command: ['sh', '-c', `${hook(state)} || echo hook-failed; exec sleep 600`], label }),
    });
    ids[label] = s.id;
  }
  // Every report made before the page opens: it must show them from the list, not only from events.
  for (const [label, state] of [['agent-working', 'working'], ['agent-waiting', 'waiting_input'], ['agent-asking', 'pending_approval']]) {
    for (let i = 0; i < 300; i++) {
      const s = await daemon.api(`/api/sessions/${ids[label]}`);
      if (s.activity === state) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(daemon.url);
  await waitForLiveTab(page, 3);
});

after(async () => {
  await browser?.close();
  await daemon?.cleanup();
});

const tabActivity = (label) => page.locator(`.tab[data-session-id="${ids[label]}"] [data-testid=tab-activity]`);
const listActivity = (label) => page.locator(`.session[data-session-id="${ids[label]}"] [data-testid=activity-badge]`);

test('each tab and list row says in words what its agent is doing', async () => {
  await tabActivity('agent-waiting').waitFor();
  assert.equal((await tabActivity('agent-waiting').innerText()).trim(), 'waiting for you');
  assert.equal((await tabActivity('agent-asking').innerText()).trim(), 'needs approval');
  assert.equal((await tabActivity('agent-working').innerText()).trim(), 'working');
  assert.equal(await page.locator(`.tab[data-session-id="${ids['agent-waiting']}"]`).getAttribute('data-activity'), 'waiting_input');
  await listActivity('agent-waiting').waitFor();
  assert.equal((await listActivity('agent-waiting').innerText()).trim(), 'waiting for you');
  assert.equal((await listActivity('agent-asking').innerText()).trim(), 'needs approval');
  const colours = await page.evaluate(() => [...document.querySelectorAll('.tab [data-testid=tab-activity]')].map((e) => getComputedStyle(e).color));
  assert.equal(new Set(colours).size, 3, 'each state has its own colour besides its word');
  await screenshot(page, 'activity-tabs');
});

test('a report pushed while the page is open moves the tab at once', async () => {
  await daemon.api(`/api/sessions/${ids['agent-working']}/activity`, { method: 'POST', body: JSON.stringify({ activity: 'waiting_input' }) });
  await page.waitForFunction((id) => document.querySelector(`.tab[data-session-id="${id}"]`)?.dataset.activity === 'waiting_input',
    ids['agent-working'], { timeout: 15_000 });
  assert.equal((await tabActivity('agent-working').innerText()).trim(), 'waiting for you');
});

test('notifications are off until a person turns them on; then a session that starts waiting raises one', async () => {
  // The browser's notifications, recorded: headless Chromium shows none.
  await page.evaluate(() => {
    window.shown = [];
    window.Notification = class {
      static permission = 'default';
      static async requestPermission() { window.Notification.permission = 'granted'; return 'granted'; }
      constructor(title, options) { window.shown.push({ title, tag: options?.tag }); }
    };
  });
  const report = (label, activity) => daemon.api(`/api/sessions/${ids[label]}/activity`, { method: 'POST', body: JSON.stringify({ activity }) });
  const tabShows = (label, activity) => page.waitForFunction(([id, a]) => document.querySelector(`.tab[data-session-id="${id}"]`)?.dataset.activity === a,
    [ids[label], activity], { timeout: 15_000 });

  await report('agent-waiting', 'working');
  await tabShows('agent-waiting', 'working');
  await report('agent-waiting', 'waiting_input');
  await tabShows('agent-waiting', 'waiting_input');
  assert.deepEqual(await page.evaluate(() => window.shown), [], 'nothing while the opt-in is off');
  assert.equal(await page.locator('[data-testid=notify-button]').getAttribute('aria-pressed'), 'false');

  await page.click('[data-testid=notify-button]');
  await page.waitForFunction(() => document.querySelector('[data-testid=notify-button]')?.getAttribute('aria-pressed') === 'true');
  assert.deepEqual(await page.evaluate(() => window.shown), [], 'turning it on does not notify about what already waits');
  await report('agent-waiting', 'working');
  await tabShows('agent-waiting', 'working');
  await report('agent-waiting', 'pending_approval');
  await tabShows('agent-waiting', 'pending_approval');
  assert.deepEqual(await page.evaluate(() => window.shown), [{ title: 'agent-waiting: needs approval', tag: `limpet-${ids['agent-waiting']}` }]);
});
