// Keys as a person types them, seen on the wire and on the screen: every key leaves the page as a
// binary pty_input frame (never as JSON text); while the session's worker is stopped (as one stuck
// in GC, swap or a slow disk would be) the daemon holds its keys and the tab shows them pending;
// once the worker resumes they arrive exactly once, in order, and the tab says nothing waits.
// The daemon here sends every key through the worker (LIMPET_WORKER_LEND_MASTER=0): by default the
// worker lends it the PTY master and a stopped worker holds no key, so keys wait only when the
// program's terminal is full, which the daemon's own tests fill; the page shows both the same way.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import {
  countOccurrences, launchBrowser, newPage, openFirstTerminal, screenOf, screenshot, snapshot, waitForPrompt, waitForScreen,
  waitForSnapshot,
} from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';

let daemon;
let browser;
let page;
let stopped = 0;
const sentFrames = [];

before(async () => {
  daemon = await new Daemon({ env: { LIMPET_WORKER_LEND_MASTER: '0' } }).start();
  browser = await launchBrowser();
  page = await newPage(browser);
  page.on('websocket', (ws) => ws.on('framesent', (f) => sentFrames.push(f.payload)));
  await page.goto(daemon.url);
  await openFirstTerminal(page);
});

after(async () => {
  if (stopped) process.kill(stopped, 'SIGCONT');
  await browser?.close();
  await daemon?.cleanup();
});

/** The worker process serving a session: the parent of its program (from the kernel). */
async function workerOf(sessionId) {
  const info = await daemon.api(`/api/sessions/${sessionId}`);
  const stat = readFileSync(`/proc/${info.pid}/stat`, 'utf8');
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  assert.match(readFileSync(`/proc/${ppid}/cmdline`, 'utf8'), /WorkerMain/, 'the parent of the program is its worker');
  return ppid;
}

/**
 * Stops a process and waits until every thread of it is stopped: kill returns once the signal is
 * queued, and on a loaded machine the worker's other threads run on (and may take a key) until
 * one of them gets the CPU to begin the stop.
 */
async function stopWholly(pid) {
  process.kill(pid, 'SIGSTOP');
  const stoppedThreads = () => readdirSync(`/proc/${pid}/task`).every((tid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return stat[stat.lastIndexOf(')') + 2] === 'T';
    } catch {
      return true; // a thread that ended meanwhile takes nothing
    }
  });
  for (const started = Date.now(); !stoppedThreads(); await new Promise((r) => setTimeout(r, 10))) {
    assert.ok(Date.now() - started < 10_000, `every thread of ${pid} stopped within 10 s`);
  }
}

const inputFrames = () => sentFrames.filter((p) => typeof p !== 'string' && p[0] === 2);
const textInputs = () => sentFrames.filter((p) => typeof p === 'string' && p.includes('"pty_input"'));

test('keys go as binary frames; a stuck session\'s tab shows its keys pending, and they arrive once, in order, when it resumes', async () => {
  const { activeTabId: tabId, tabs } = await snapshot(page);
  const sessionId = tabs[0].sessionId;
  await waitForPrompt(page, tabId);
  await page.locator('.term-host:not(.hidden) .xterm').click();
  await page.keyboard.type('echo before-$((1+1))', { delay: 5 });
  await page.keyboard.press('Enter');
  await waitForScreen(page, tabId, (t) => t.includes('before-2'), 'the first command to run');
  assert.ok(inputFrames().length >= 'echo before-$((1+1))'.length, 'each key went as a binary frame of kind 2');
  assert.deepEqual(textInputs(), [], 'no key went as JSON text');
  const first = Buffer.from(inputFrames()[0]);
  assert.equal(first.subarray(2, 2 + first[1]).toString('ascii'), sessionId, 'the frame names the session');

  stopped = await workerOf(sessionId);
  await stopWholly(stopped);
  await page.keyboard.type('echo stuck-$((40+2))', { delay: 5 });
  await page.keyboard.press('Enter');
  const held = await waitForSnapshot(page, (s) => s.tabs[0].pendingKeys === 'echo stuck-$((40+2))'.length + 1,
    'the daemon to report the keys waiting', 20_000);
  assert.equal(held.tabs[0].phase, 'live', 'the tab is attached: the keys wait in the daemon, not in the page');
  await page.locator('[data-testid=pending-keys]', { hasText: `${held.tabs[0].pendingKeys} keys pending` }).waitFor();
  await screenshot(page, '63-stuck-session-keys-pending');
  assert.equal(countOccurrences(await screenOf(page, tabId), 'stuck-42'), 0, 'nothing ran while the worker was stopped');

  process.kill(stopped, 'SIGCONT');
  stopped = 0;
  await waitForSnapshot(page, (s) => s.tabs[0].pendingKeys === 0, 'the keys to arrive', 20_000);
  const screen = await waitForScreen(page, tabId, (t) => t.split('\n').some((l) => l.trim() === 'stuck-42'), 'the held command to run');
  await page.waitForTimeout(1000); // a duplicate would have arrived by now
  const settled = await screenOf(page, tabId);
  assert.equal(settled.split('\n').filter((l) => l.trim() === 'stuck-42').length, 1, `the command ran exactly once:\n${screen}`);
  assert.equal(countOccurrences(settled, 'echo stuck-$((40+2))'), 1, `the line was typed once, in order:\n${settled}`);
  assert.equal(await page.locator('[data-testid=pending-keys]').count(), 0);
  assert.deepEqual(textInputs(), [], 'no key went as JSON text');
});
