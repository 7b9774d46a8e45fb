// Tokens people can use: `limpet open` gives a link that opens the UI; the browser keeps the token
// for the origin (a bookmark of the plain address works) until "Forget token"; a page without a
// token, and one whose token the daemon refuses, say to run `limpet open`; an unreachable daemon
// gets a different message and the page keeps retrying; so does a page from an origin the daemon
// does not allow, naming --allow-origin.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, openFirstTerminal, waitForLiveTab, waitForSnapshot } from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';
import { JVM_FLAGS, javaBinary, limpetJar } from './support/paths.mjs';
import { TcpProxy } from './support/tcp-proxy.mjs';

let browser;
let scratch;
const daemons = [];

before(async () => {
  browser = await launchBrowser();
  scratch = mkdtempSync(join(tmpdir(), 'limpet-e2e-token-'));
});

after(async () => {
  await browser?.close();
  for (const d of daemons) await d.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

async function startDaemon(options) {
  const daemon = new Daemon(options);
  daemons.push(daemon);
  return daemon.start();
}

/** Runs `limpet open` as a person would, with a $BROWSER that records what it was given. */
function limpetOpen(daemon) {
  const seen = join(scratch, 'seen');
  const read = join(scratch, 'read.html');
  const browserScript = join(scratch, 'browser');
  // As a browser does: it reads the page it is handed at once (limpet open then deletes it: it holds
  // the token) and goes on from what it read. Playwright opens that copy below.
  writeFileSync(browserScript, `#!/bin/sh\nprintf '%s' "$1" > ${seen}\ncat "\${1#file://}" > ${read}\n`);
  chmodSync(browserScript, 0o700);
  const result = spawnSync(javaBinary(), [...JVM_FLAGS, '-jar', limpetJar(), 'open'], {
    encoding: 'utf8',
    env: { ...process.env, LIMPET_HOME: daemon.dataRoot, XDG_CONFIG_HOME: join(scratch, 'config'), BROWSER: browserScript },
  });
  assert.equal(result.status, 0, result.stderr);
  const handedToBrowser = readFileSync(seen, 'utf8');
  assert.ok(!existsSync(new URL(handedToBrowser)), 'the page holding the token is gone once the browser read it');
  return { printed: result.stdout.trim(), handedToBrowser, readByBrowser: `file://${read}` };
}

const tokenInStorage = (page) => page.evaluate(() => [sessionStorage.getItem('limpet.token'), localStorage.getItem('limpet.token')]);

test('a page without a token says to run `limpet open`, and starts once the link is pasted', async () => {
  const daemon = await startDaemon();
  const page = await newPage(browser);
  await page.goto(daemon.origin);
  const text = await page.locator('[data-testid=no-token]').innerText();
  assert.match(text, /limpet open/);
  // Pasting the link changes only the fragment; the page starts again with it.
  await Promise.all([page.waitForEvent('load'), page.goto(daemon.url)]);
  await openFirstTerminal(page);
  await page.context().close();
});

test('the link of `limpet open` opens the UI, and later the plain address (a bookmark) works in that browser', async () => {
  const daemon = await startDaemon();
  const { printed, handedToBrowser, readByBrowser } = limpetOpen(daemon);
  assert.equal(printed, daemon.url, 'it prints the link the daemon printed');
  assert.match(handedToBrowser, /^file:\/\//, 'the browser gets the forwarding page, not the token');

  const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  const page = await newPage(browser, context);
  await page.goto(readByBrowser);
  await openFirstTerminal(page);
  assert.equal(new URL(page.url()).hash, '', 'the token is gone from the address bar');
  assert.deepEqual(await tokenInStorage(page), [daemon.token, daemon.token]);

  const bookmark = await context.newPage();
  await bookmark.goto(daemon.origin);
  await waitForSnapshot(bookmark, (s) => s.handshake === 'ready', 'the plain address to connect');
  await context.close();
});

test('"Forget token" forgets it in this browser: the open page keeps working, a new one asks for the link', async () => {
  const daemon = await startDaemon();
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  const page = await newPage(browser, context);
  await page.goto(daemon.url);
  await openFirstTerminal(page);
  // The top bar is for status: the token's control is behind More.
  await page.click('[data-testid=more-button]');
  const button = page.locator('[data-testid=token-button]');
  assert.equal(await button.innerText(), 'Forget token');
  await button.click();
  assert.equal(await button.innerText(), 'Remember token');
  assert.deepEqual(await tokenInStorage(page), [null, null]);
  assert.equal(await page.locator('[data-testid=indicator]').getAttribute('data-tone'), 'ok', 'the open page stays connected');

  const later = await context.newPage();
  await later.goto(daemon.origin);
  assert.match(await later.locator('[data-testid=no-token]').innerText(), /limpet open[\s\S]*forget/);
  // A link opened now is kept for its browser tab only.
  await Promise.all([later.waitForEvent('load'), later.goto(daemon.url)]);
  await waitForLiveTab(later, 1);
  assert.deepEqual(await tokenInStorage(later), [daemon.token, null]);

  await button.click();
  assert.deepEqual(await tokenInStorage(page), [daemon.token, daemon.token]);
  await context.close();
});

test('a wrong token says so and names `limpet open`; the page stops retrying', async () => {
  const daemon = await startDaemon();
  const page = await newPage(browser);
  await page.goto(`${daemon.origin}/#token=${'0'.repeat(64)}`);
  const banner = await page.locator('[data-testid=banner-wrong-token]').innerText();
  assert.match(banner, /Wrong token/);
  assert.match(banner, /limpet open/);
  const s = await waitForSnapshot(page, (x) => x.host === 'stopped', 'the page to stop retrying');
  assert.equal(s.handshake, 'offline');
  assert.equal(await page.locator('[data-testid=indicator]').innerText(), 'token refused');
  assert.equal(await page.locator('[data-testid=banner-unreachable]').count(), 0);
  await page.context().close();
});

test('an unreachable daemon gets another message and retries; a new daemon there that refuses the token is a wrong token', async () => {
  // The embedded backend: the sessions end with their daemon, so nothing outlives the kill.
  const first = await startDaemon({ extraArgs: ['--backend', 'embedded'] });
  const page = await newPage(browser);
  await page.goto(first.url);
  await openFirstTerminal(page);
  await first.kill9();

  const unreachable = page.locator('[data-testid=banner-unreachable]');
  await unreachable.waitFor({ timeout: 15_000 });
  const text = await unreachable.innerText();
  assert.match(text, /Daemon unreachable/);
  assert.match(text, /limpet daemon/);
  assert.doesNotMatch(text, /limpet open/, 'an unreachable daemon is not a token problem');
  assert.notEqual((await waitForSnapshot(page, (s) => s.host !== 'online', 'the link to be down')).host, 'stopped', 'it keeps retrying');

  // Another data root answers on the same port: its token is not the one this page holds.
  const second = new Daemon({ extraArgs: ['--backend', 'embedded'] });
  second.port = first.port;
  daemons.push(second);
  await second.start();
  await page.locator('[data-testid=banner-wrong-token]').waitFor({ timeout: 20_000 });
  assert.equal(await unreachable.count(), 0);
  await waitForSnapshot(page, (s) => s.host === 'stopped', 'the page to stop retrying');
  await page.context().close();
});

test('a page reached through a proxy the daemon does not allow says to use --allow-origin, not to fix the token', async () => {
  const daemon = await startDaemon();
  const proxy = await new TcpProxy(daemon.port).listen();
  try {
    const page = await newPage(browser);
    await page.goto(`http://127.0.0.1:${proxy.port}/#token=${daemon.token}`);
    const banner = await page.locator('[data-testid=banner-upgrade-refused]').innerText({ timeout: 20_000 });
    assert.match(banner, new RegExp(`--allow-origin http://127\\.0\\.0\\.1:${proxy.port}`));
    assert.doesNotMatch(banner, /limpet open/);
    assert.equal(await page.locator('[data-testid=banner-wrong-token]').count(), 0);
    assert.notEqual((await waitForSnapshot(page, (s) => s.host !== 'online', 'the link to be down')).host, 'stopped', 'it keeps retrying');
    await page.context().close();
  } finally {
    await proxy.close();
  }
});
