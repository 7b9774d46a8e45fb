// Every host in one place: the page served by the user's own daemon lists and opens the sessions of
// every host in its hosts.json — one reached through a relay (the end-to-end crypto runs in this
// page, which came from the user's own machine), one reached directly — grouped by host, with the
// sessions that need a person on top across hosts. The relay serves this page no code: it only sees
// the WebSocket. Takes docs/ui-hosts.png.
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { seriousViolations } from './support/axe.mjs';
import { launchBrowser, newPage, screenshot, waitForScreen } from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';
import { repoRoot } from './support/paths.mjs';
import { Relay, pairingLink } from './support/relay.mjs';

let relay;
let local;
let far;
let browser;
let page;
let config;
const requests = [];
let farSession;

const cockpit = () => page.evaluate(() => {
  const s = window.limpet.cockpit();
  return { activeTabId: s.activeTabId, tabs: s.tabs.map((t) => ({ tabId: t.tabId, hostKey: t.hostKey, sessionId: t.sessionId, phase: t.phase })),
    hosts: s.hosts.map((h) => ({ key: h.key, name: h.name, kind: h.kind, handshake: h.snapshot.handshake })) };
});

async function waitForCockpit(predicate, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await cockpit();
    if (process.env.DEBUG_COCKPIT) console.log(Date.now(), JSON.stringify(last.hosts));
    if (predicate(last)) return last;
    await page.waitForTimeout(100);
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
}

before(async () => {
  config = mkdtempSync(join(tmpdir(), 'limpet-e2e-config-'));
  chmodSync(config, 0o700);
  relay = await new Relay().start();
  local = await new Daemon({ env: { XDG_CONFIG_HOME: config } }).start();
  // The far host takes the local page's origin on its own WebSocket (the direct path) and is enrolled at the relay.
  far = new Daemon({ extraArgs: ['--allow-origin', local.origin] });
  relay.enrol(far.dataRoot);
  far.extraArgs.push('--relay', `${relay.origin}/`);
  await far.start();
  const farRelay = async (ready, what) => {
    // Generous: on a loaded machine the far daemon's uplink takes its time; the page would see pairing_invalid before it.
    for (let i = 0; i < 1200; i++) {
      const relayState = (await far.api('/api/status')).relay;
      if (ready(relayState)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the far daemon's relay uplink: no ${what} in 120 s`);
  };
  await farRelay((r) => r?.state === 'connected', 'connection');
  const link = new URL(pairingLink(far.dataRoot));
  await farRelay((r) => r?.state === 'connected' && r.gate_pairings >= 1, 'pairing at the gate');
  const dir = join(config, 'limpet');
  mkdirSync(join(dir, 'pairings'), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'pairings', 'far'), link.hash.slice(1) + '\n', { mode: 0o600 });
  writeFileSync(join(dir, 'far-token'), readFileSync(join(far.dataRoot, 'auth-token')), { mode: 0o600 });
  writeFileSync(join(dir, 'hosts.json'), JSON.stringify({ hosts: [
    { name: 'far', relay: `${link.origin}${link.pathname}`, secret_file: 'pairings/far' },
    { name: 'far-direct', url: far.origin, token_file: 'far-token' },
  ] }), { mode: 0o600 });
  farSession = (await far.api('/api/sessions', { method: 'POST', body: JSON.stringify({
    command: ['sh', '-c', 'printf "ready on far\\nShip it? [y/N] "; read a; echo "far got $a"; exec sleep 600'], label: 'release on far' }) })).id;
  await local.api('/api/sessions', { method: 'POST', body: JSON.stringify({ command: ['sleep', '600'], label: 'a local job' }) });
  browser = await launchBrowser();
  page = await newPage(browser);
  page.on('request', (r) => requests.push(r.url()));
  if (process.env.DEBUG_COCKPIT) page.on('console', (m) => console.log('page:', m.type(), m.text()));
  await page.goto(local.url);
});

after(async () => {
  await browser?.close();
  await far?.cleanup();
  await local?.cleanup();
  await relay?.cleanup();
  rmSync(config, { recursive: true, force: true });
});

test('the local page reaches the hosts of hosts.json, through the relay and directly, and lists their sessions by host', async () => {
  await waitForCockpit((c) => c.hosts.length === 3 && c.hosts.every((h) => h.handshake === 'ready'), 'three hosts connected');
  const c = await cockpit();
  assert.deepEqual(c.hosts.map((h) => [h.key, h.kind]), [['local', 'local'], ['h:far', 'relay'], ['h:far-direct', 'direct']]);
  assert.deepEqual(c.tabs.filter((t) => t.hostKey !== 'local'), [], 'another host\'s sessions open when chosen, not all at once');
  for (const host of ['h:far', 'h:far-direct']) {
    await page.locator(`[data-group="host-${host}"] button.session[data-session-id="${farSession}"]`).waitFor({ timeout: 15_000 });
  }
  const headings = await page.locator('.session-group-title').allInnerTexts();
  assert.ok(headings.some((t) => /^far · connected through relay/i.test(t)), `a group for the relayed host: ${headings}`);
  assert.ok(headings.some((t) => /^far-direct · connected/i.test(t)), `a group for the direct host: ${headings}`);
});

test('a session on the relayed host opens and is driven from the local page; the relay served this page nothing', async () => {
  await page.locator(`[data-group="host-h:far"] button.session[data-session-id="${farSession}"]`).click();
  const c = await waitForCockpit((x) => x.tabs.some((t) => t.hostKey === 'h:far' && t.sessionId === farSession && t.phase === 'live'
    && t.tabId === x.activeTabId), 'the far session live in the active tab');
  const tabId = c.activeTabId;
  await waitForScreen(page, tabId, 'Ship it?', 'the far session\'s screen');
  assert.equal((await page.locator(`.tab[data-tab-id="${tabId}"] .tab-host`).textContent()).trim(), 'far:', 'the tab names its host');
  await page.keyboard.type('y\n', { delay: 20 });
  await waitForScreen(page, tabId, 'far got y', 'the answer went through the relay');
  const relayed = requests.filter((url) => url.startsWith(relay.origin));
  assert.deepEqual(relayed, [], 'no HTTP request to the relay: the page and its code came from the local daemon');
  assert.equal(new URL(page.url()).origin, local.origin);
});

test('the attention order holds across hosts: a far session that waits goes on top', async () => {
  await far.api(`/api/sessions/${farSession}/activity`, { method: 'POST', body: JSON.stringify({ activity: 'pending_approval' }) });
  const first = page.locator('[data-group=needs-you] button.session').first();
  await page.waitForFunction((id) => document.querySelector('[data-group=needs-you] button.session')?.dataset.sessionId === id, farSession,
    { timeout: 15_000 });
  assert.match(await first.innerText(), /release on far/);
  assert.match(await first.innerText(), /far/);
  assert.match(await page.title(), /^\(\d\) limpet$/);
  assert.deepEqual(await seriousViolations(page, 'every host'), [], 'axe on the multi-host view');
  await page.waitForTimeout(300);
  copyFileSync(await screenshot(page, 'ui-hosts'), join(repoRoot, 'docs', 'ui-hosts.png'));
});
