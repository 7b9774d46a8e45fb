// Debian's Chromium through playwright-core, plus the page helpers the scenarios share.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { chromiumPath, screenshotDir } from './paths.mjs';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

export async function launchBrowser() {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
}

export async function newPage(browser, context = null) {
  const ctx = context ?? await browser.newContext({ viewport: { width: 1280, height: 760 } });
  const page = await ctx.newPage();
  page.on('pageerror', (error) => console.error('page error:', error.message));
  return page;
}

export async function screenshot(page, name) {
  const dir = screenshotDir();
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** The workspace snapshot the page exposes for tests (window.limpet.snapshot()). */
export const snapshot = (page) => page.evaluate(() => {
  const s = window.limpet.snapshot();
  return { tabs: s.tabs, activeTabId: s.activeTabId, handshake: s.handshake, host: s.host.status, daemon: s.daemon,
    sessions: s.sync.sessions, unclaimed: s.unclaimed };
});

export const screenOf = (page, tabId) => page.evaluate((id) => window.limpet.screen(id), tabId);

export async function activeTab(page) {
  return (await snapshot(page)).activeTabId;
}

/** Waits until the predicate over the snapshot holds; returns the snapshot. */
export async function waitForSnapshot(page, predicate, description, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await snapshot(page);
    if (predicate(last)) return last;
    await page.waitForTimeout(100);
  }
  throw new Error(`timed out waiting for ${description}; last snapshot: ${JSON.stringify(last, null, 1).slice(0, 2000)}`);
}

/** Waits until the tab's screen text matches; returns the text. */
export async function waitForScreen(page, tabId, test, description, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < deadline) {
    text = await screenOf(page, tabId);
    if (typeof test === 'string' ? text.includes(test) : test(text)) return text;
    await page.waitForTimeout(100);
  }
  throw new Error(`timed out waiting for ${description} in tab ${tabId}; screen:\n${text}`);
}

export const waitForLiveTab = (page, count = 1) =>
  waitForSnapshot(page, (s) => s.tabs.length >= count && s.tabs.every((t) => t.phase === 'live'), `${count} live tab(s)`);

/** The "Open a terminal" button of the empty page ("No terminal open in this tab"). */
export const openTerminalButton = (page) => page.getByRole('button', { name: 'Open a terminal', exact: true });

/**
 * After `page.goto(...)` on a daemon where this browser tab has no tab and that runs nothing: the
 * page starts nothing by itself, so click "Open a terminal" like a person, and wait
 * until its terminal is live. Returns the snapshot.
 */
export async function openFirstTerminal(page, timeoutMs = 15_000) {
  await openTerminalButton(page).click({ timeout: timeoutMs });
  return waitForLiveTab(page, 1);
}

/** Types into the active terminal like a person (xterm's hidden textarea has the focus). */
export async function typeInTerminal(page, text) {
  await page.locator('.term-host:not(.hidden) .xterm').click();
  await page.keyboard.type(text, { delay: 5 });
}

export const countOccurrences = (text, needle) => text.split(needle).length - 1;

/** Waits for a shell prompt, so typed text is not echoed twice as typeahead before it. */
export const waitForPrompt = (page, tabId) =>
  waitForScreen(page, tabId, (t) => /[#$]\s*$/.test(t.trimEnd()), 'a shell prompt', 20_000);
