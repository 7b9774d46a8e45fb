// Every viewer shows exactly the session's screen. Real programs (vim with splits and line
// numbers, htop, less, a shell after a full-screen program exits) are driven by a script of keys
// and sizes; at each checkpoint three screens are compared cell by cell (characters, colours,
// attributes, cursor) with the daemon's model: the browser's xterm.js buffer after a reload with the
// session's tab active, the same after a reload with another tab active (then shown), and
// `limpet attach` running in a real tmux pane (`capture-pane -e`). After a detach (the detach key,
// the session's end, or a SIGTERM) the pane's modes and screen are what they were before the
// attach. Then the size policy: a phone-sized page that
// opens the session leaves its size alone; typing from it takes the size, and the other viewers
// say so.
//
// One daemon, one browser and one tmux server serve every case (CI time); each case has its own
// session, pane and page.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, screenshot, snapshot, waitForSnapshot } from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';
import { limpetCommand } from './support/paths.mjs';
import { browserScreen, daemonScreen, difference, seen, tmuxScreen, Tmux } from './support/screens.mjs';

const PANE = { cols: 100, rows: 30 };
const shellQuote = (s) => `'${String(s).replaceAll("'", "'\\''")}'`;

let daemon;
let browser;
let tmux;
let work;
/** A plain shell every page also opens: the tab that is active while the case's tab is hidden. */
let other;
let referenceCellWidth = 0;

before(async () => {
  for (const program of ['tmux', 'vim', 'htop', 'less']) {
    try {
      execFileSync('sh', ['-c', `command -v ${program}`]);
    } catch {
      throw new Error(`the fidelity suite drives ${program}: install it (apt-get install ${program})`);
    }
  }
  work = mkdtempSync(join(tmpdir(), 'limpet-fidelity-'));
  writeFileSync(join(work, 'sample.sh'), sampleScript());
  writeFileSync(join(work, 'notes.txt'), Array.from({ length: 300 }, (_, i) => `line ${i + 1}: ${'lorem ipsum '.repeat(1 + (i % 7))}`).join('\n'));
  mkdirSync(join(work, 'cli'), { recursive: true });
  daemon = await new Daemon().start(90_000);
  // `limpet` for the panes: a short command line, so the pane's screen after a detach is easy to check.
  const env = { LIMPET_URL: `${daemon.origin}/`, LIMPET_TOKEN: daemon.token, XDG_CONFIG_HOME: join(work, 'cli') };
  writeFileSync(join(work, 'limpet'), `#!/bin/sh\nexec env ${Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`).join(' ')} `
    + `${limpetCommand().map(shellQuote).join(' ')} "$@"\n`, { mode: 0o755 });
  browser = await launchBrowser();
  tmux = new Tmux();
  tmux.run('new-session', '-d', '-s', 'base', '-x', '80', '-y', '24', 'sleep 100000');
  other = await spawn(['bash', '--norc', '-i'], 'other');
});

after(async () => {
  tmux?.kill();
  await browser?.close();
  await daemon?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('vim with splits and line numbers', async (t) => {
  await fidelityCase(t, {
    label: 'vim',
    command: ['vim', '-n', '-i', 'NONE', '-c', 'set number', '-c', 'syntax on', '-O', join(work, 'sample.sh'), join(work, 'notes.txt')],
    ready: (s) => s.includes('sample.sh') && s.includes('notes.txt'),
    steps: [
      { name: 'opened' },
      { name: 'split below, typed', keys: ':split\r' + 'ggOZZZ typed here\x1b' + '\x17j' + '50G' },
      { name: 'narrower pane', size: { cols: 80, rows: 24 } },
      { name: 'taller pane, visual selection', size: { cols: 110, rows: 34 }, keys: '\x17k' + 'Vjj' },
    ],
    quit: '\x1b:qa!\r',
  });
});

test('htop', async (t) => {
  await fidelityCase(t, {
    label: 'htop',
    // Refreshed every 10 s (its longest delay): the screen holds still long enough to compare.
    command: ['htop', '-d', '100'],
    ready: (s) => s.includes('PID') && s.includes('F10'),
    steps: [
      { name: 'opened' },
      { name: 'tree view, sorted, smaller pane', keys: 't' + 'P', size: { cols: 90, rows: 26 } },
    ],
    quit: 'q',
  });
});

test('less', async (t) => {
  await fidelityCase(t, {
    label: 'less',
    command: ['less', '-N', join(work, 'notes.txt')],
    ready: (s) => s.includes('line 1:'),
    steps: [
      { name: 'opened' },
      { name: 'searched, paged, at the end', keys: '/ipsum lorem ipsum lorem\r' + ' ' + 'G' },
    ],
    quit: 'q',
  });
});

test('a shell after a full-screen program exits', async (t) => {
  await fidelityCase(t, {
    label: 'shell',
    command: ['bash', '--norc', '-i'],
    ready: (s) => /[$#] *$/m.test(s),
    steps: [
      { name: 'in vim', keys: `PS1='$ '; vim -n -i NONE -u NONE ${join(work, 'sample.sh')}\r`, wait: (s) => s.includes('sample.sh'), compare: false },
      { name: 'vim quit', keys: ':q\r', wait: (s) => !s.includes('"sample.sh"') },
      { name: 'colours', keys: 'ls --color=always / ; printf "\\033[1;31mbold red\\033[0m \\033[4munder\\033[0m \\033[7mreverse\\033[0m 一二三\\n"\r' },
      { name: 'in htop', keys: 'htop -d 100\r', wait: (s) => s.includes('PID'), compare: false },
      { name: 'htop quit, back in the shell', keys: 'q', wait: (s) => !s.includes('PID'), then: 'echo back in the shell\r' },
    ],
    quit: 'exit\r',
  });
});

test('sizes: a phone that opens a session leaves its size; typing from it takes it and the other viewers say so', async (t) => {
  const id = await spawn(['bash', '--norc', '-i'], 'sized');
  const pane = openPane('sized');
  const before = paneState(pane);
  startAttach(pane, id);
  await waitForAttached(id);
  await waitFor(async () => tmux.display(pane, '#{alternate_on}') === '1', 'limpet attach took the pane');
  await waitForSize(id, PANE.cols, PANE.rows, 'the CLI (the person ran attach there) has the size');
  const desktop = await openPage({ width: 1280, height: 760 });
  const desktopTabId = await desktopTab(desktop, id);
  await activate(desktop, desktopTabId);
  const phone = await openPage({ width: 390, height: 844 });
  const phoneTab = await desktopTab(phone, id);
  await activate(phone, phoneTab);
  await phone.waitForTimeout(1000);
  let info = await daemon.api(`/api/sessions/${id}`);
  assert.deepEqual([info.cols, info.rows], [PANE.cols, PANE.rows], 'opening the session on a phone did not resize it');
  const markerOf = (page, tab) => page.locator(`.term-host[data-tab-id="${tab}"] [data-testid=size-marker]`);
  await waitFor(async () => (await markerOf(phone, phoneTab).textContent()).includes(`Sized for another viewer (${PANE.cols}×${PANE.rows})`),
    'the phone says the session is sized for another viewer');
  // Typing from the phone takes the size (its keyboard focus, no tap on the terminal).
  await phone.locator(`.term-host[data-tab-id="${phoneTab}"] .xterm-helper-textarea`).focus();
  await phone.keyboard.type('echo typed-on-the-phone\n', { delay: 10 });
  info = await waitFor(async () => {
    const i = await daemon.api(`/api/sessions/${id}`);
    return i.cols < 60 ? i : null;
  }, 'the session took the phone\'s size');
  t.diagnostic(`phone size: ${info.cols}×${info.rows}`);
  const marker = `Sized for another viewer (${info.cols}×${info.rows})`;
  await waitFor(async () => (await markerOf(desktop, desktopTabId).textContent()) === `${marker} — Take it`,
    'the desktop page shows the marker');
  await waitFor(async () => tmux.run('capture-pane', '-p', '-t', pane).includes(`limpet: sized for another viewer (${info.cols}×${info.rows})`),
    'the CLI says so in its status line');
  await screenshot(desktop, '70-sized-for-another-viewer');
  // Take it (the desktop's button): the session takes the desktop page's size.
  await markerOf(desktop, desktopTabId).locator('button').click();
  info = await waitFor(async () => {
    const i = await daemon.api(`/api/sessions/${id}`);
    return i.cols > 100 ? i : null;
  }, 'the desktop took the size back');
  await waitFor(async () => !(await markerOf(desktop, desktopTabId).isVisible()), 'the desktop marker is gone');
  await waitFor(async () => tmux.run('capture-pane', '-p', '-t', pane).includes(`limpet: sized for another viewer (${info.cols}×${info.rows})`),
    'the CLI says the desktop has the size now');
  await phone.context().close();
  await desktop.context().close();
  await detachAndCheck(pane, id, before);
  await daemon.api(`/api/sessions/${id}`, { method: 'DELETE' });
});

test('a signal that ends limpet attach gives the pane back as it was', async () => {
  // vim with the mouse on: the attach mirrors the alternate screen, application keys, mouse
  // reporting and bracketed paste onto the pane; a SIGTERM (a `kill`, a closing terminal emulator's
  // parent) must undo them as a detach does.
  const id = await spawn(['vim', '-n', '-i', 'NONE', '-c', 'set mouse=a', '-c', 'set number', join(work, 'notes.txt')], 'signal');
  await waitFor(async () => text(await daemonScreen(daemon, id)).includes('line 1:'), 'vim to start');
  const pane = openPane('signal');
  const before = paneState(pane);
  startAttach(pane, id);
  await waitForAttached(id);
  await agree(id, () => tmuxScreen(tmux, pane), 'limpet attach in tmux', 'signal: attached');
  const attached = tmux.modes(pane);
  assert.match(attached, /alternate_on=1 .*mouse_(any|button|standard)_flag=1/, `the attach took the pane's alternate screen and mouse: ${attached}`);
  // The shell in the pane runs the launcher, which execs the JVM: the shell's only child is attach.
  const shellPid = tmux.display(pane, '#{pane_pid}');
  const attachPid = execFileSync('ps', ['-o', 'pid=', '--ppid', shellPid], { encoding: 'utf8' }).trim();
  assert.match(attachPid, /^\d+$/, `one process under the pane's shell: ${attachPid}`);
  process.kill(Number(attachPid), 'SIGTERM');
  const shown = () => tmux.run('capture-pane', '-p', '-t', pane).replace(/\n+$/, '');
  await waitFor(async () => /\n\$ *$/.test(shown()) && tmux.display(pane, '#{alternate_on}') === '0', 'the pane\'s shell prompt after the signal', 30_000, shown);
  assert.equal(tmux.modes(pane), before.modes, 'the pane\'s modes and title are what they were before the attach');
  const after = tmux.run('capture-pane', '-p', '-e', '-t', pane).replace(/\n+$/, '').split('\n');
  const was = before.screen.replace(/\n+$/, '').split('\n');
  assert.deepEqual(after.slice(0, was.length - 1), was.slice(0, -1), 'the rows above the command are as before');
  assert.ok(!after.some((row) => row.includes('lorem ipsum')), `nothing of the session is left on the pane:\n${after.join('\n')}`);
  assert.equal((await daemon.api(`/api/sessions/${id}`)).state, 'running', 'the session runs on');
  await daemon.api(`/api/sessions/${id}`, { method: 'DELETE' });
});

// ---- the case runner ----------------------------------------------------------------------------

async function fidelityCase(t, { label, command, ready, steps, quit }) {
  const started = Date.now();
  const id = await spawn(command, label);
  await waitFor(async () => ready(text(await daemonScreen(daemon, id))), `${label} to start`);
  const pane = openPane(label);
  const before = paneState(pane);
  startAttach(pane, id);
  await waitForAttached(id);
  await waitForSize(id, PANE.cols, PANE.rows, `limpet attach (in its ${PANE.cols}×${PANE.rows} pane) took the size`);
  const page = await openPage({ width: 1280, height: 760 });
  for (const step of steps) {
    if (step.size) {
      tmux.run('resize-window', '-t', pane, '-x', String(step.size.cols), '-y', String(step.size.rows));
      await waitForSize(id, step.size.cols, step.size.rows, `${label}: the session follows the pane it is used in (${step.name})`);
    }
    if (step.keys) await input(id, step.keys);
    if (step.wait) await waitFor(async () => step.wait(text(await daemonScreen(daemon, id))), `${label}: ${step.name}`);
    if (step.then) await input(id, step.then);
    if (step.compare !== false) await checkpoint(t, page, id, pane, `${label}: ${step.name}`);
  }
  await screenshot(page, `71-fidelity-${label}`);
  await page.context().close();
  // The pane gets its own size back first: its scroll region and tab stops follow its size.
  tmux.run('resize-window', '-t', pane, '-x', String(PANE.cols), '-y', String(PANE.rows));
  await input(id, quit); // the program ends, and with it the session and the attach
  await detachAndCheck(pane, id, before, { resized: steps.some((step) => step.size), sessionEnds: true });
  await daemon.api(`/api/sessions/${id}`, { method: 'DELETE' }).catch(() => undefined);
  t.diagnostic(`${label}: ${steps.filter((s) => s.compare !== false).length} checkpoints in ${Date.now() - started} ms`);
}

/** Keys for the session, as a script types them (a connection not attached to it: it takes no size). */
const input = (id, data) => daemon.api(`/api/sessions/${id}/input`, { method: 'POST', body: JSON.stringify({ data }) });

/**
 * The daemon's model, once its output has settled, against the CLI in the pane and the browser
 * after a reload with the tab active and with it hidden.
 */
async function checkpoint(t, page, id, pane, name) {
  await agree(id, () => tmuxScreen(tmux, pane), 'limpet attach in tmux', name);
  const tabId = await desktopTab(page, id);
  // Reloaded with the session's tab active.
  await activate(page, tabId);
  await page.reload();
  await waitForSnapshot(page, (s) => s.tabs.length >= 2 && s.tabs.every((x) => x.phase === 'live'), 'the tabs live after the reload', 30_000);
  await agree(id, () => browserScreen(page, tabId), 'the browser, reloaded with the tab active', name);
  const width = await cellWidth(page, tabId);
  if (referenceCellWidth === 0) referenceCellWidth = width;
  assert.ok(width > 0 && Math.abs(width - referenceCellWidth) < 0.01, `${name}: cell width ${width}, as measured visible ${referenceCellWidth}`);
  // Reloaded with another tab active, then shown.
  await activate(page, await desktopTab(page, other));
  await page.reload();
  await waitForSnapshot(page, (s) => s.tabs.length >= 2 && s.tabs.every((x) => x.phase === 'live'), 'the tabs live after the reload', 30_000);
  await activate(page, tabId);
  const model = await agree(id, () => browserScreen(page, tabId), 'the browser, reloaded with the tab hidden, then shown', name);
  const shownWidth = await cellWidth(page, tabId);
  assert.ok(Math.abs(shownWidth - referenceCellWidth) < 0.01, `${name}: a terminal restored while hidden measures its cells (${shownWidth}) as a visible one (${referenceCellWidth})`);
  // Narrow characters are drawn at their measured width (a wide character is spaced over its two cells).
  const letterSpacing = await page.evaluate((tab) => [...document.querySelectorAll(`.term-host[data-tab-id="${tab}"] .xterm-rows span`)]
    .filter((s) => /^[\x20-\x7e]+$/.test(s.textContent)).map((s) => s.style.letterSpacing).filter((x) => x && Math.abs(parseFloat(x)) > 0.5), tabId);
  assert.deepEqual(letterSpacing, [], `${name}: rows render without stretched letter spacing`);
  t.diagnostic(`${name}: the model, the CLI and both reloads agree (${seen(model).size})`);
}

/**
 * Waits until a viewer shows the daemon's model of the session (read again each time: a program
 * may redraw meanwhile); returns the model; fails with the difference.
 */
async function agree(id, read, viewer, name) {
  let last = null;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const model = await settled(id);
    last = difference(model, await read(), ['model', viewer]);
    if (last === null) return model;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`${name}: ${viewer} does not show the session's screen:\n${last}`);
}

/** The model once the session's output stopped for a moment. */
async function settled(id) {
  let end = -1;
  let stableSince = Date.now();
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const info = await daemon.api(`/api/sessions/${id}`);
    if (info.end_offset !== end) {
      end = info.end_offset;
      stableSince = Date.now();
    } else if (Date.now() - stableSince > 400) {
      return daemonScreen(daemon, id);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`session ${id}'s output did not settle`);
}

// ---- the pane ---------------------------------------------------------------------------------

function openPane(name) {
  const target = `fid-${name}`;
  tmux.run('new-window', '-d', '-t', 'base', '-n', target, 'env', `PS1=$ `, 'bash', '--norc', '-i');
  tmux.run('resize-window', '-t', `base:${target}`, '-x', String(PANE.cols), '-y', String(PANE.rows));
  tmux.run('send-keys', '-t', `base:${target}`, 'printf "\\033]2;the pane title\\007"; clear; echo a shell with its own screen', 'Enter');
  return `base:${target}`;
}

/** What the pane shows and which modes it has, before the attach. */
function paneState(pane) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !tmux.run('capture-pane', '-p', '-t', pane).includes('a shell with its own screen\n$')) {
    execFileSync('sleep', ['0.1']);
  }
  return { modes: tmux.modes(pane), screen: tmux.run('capture-pane', '-p', '-e', '-t', pane) };
}

function startAttach(pane, id) {
  tmux.run('send-keys', '-t', pane, `${join(work, 'limpet')} attach ${id}`, 'Enter');
}

/**
 * Ends the attach (Ctrl-\\, or the session's end when `sessionEnds`) and checks the pane got back
 * its modes, its title and its screen. A pane that was resized meanwhile has its rows where tmux's
 * own resize put them: then its rows are compared in order, not by position.
 */
async function detachAndCheck(pane, id, before, { resized = false, sessionEnds = false } = {}) {
  if (!sessionEnds) tmux.run('send-keys', '-t', pane, '-H', '1c');
  const shown = () => tmux.run('capture-pane', '-p', '-t', pane).replace(/\n+$/, '');
  await waitFor(async () => /\]\n\$ *$/.test(shown()), 'the pane\'s shell prompt after the detach', 30_000, shown);
  assert.equal(tmux.modes(pane), before.modes, 'the pane\'s modes and title are what they were before the attach');
  const rows = (screen) => {
    const all = screen.replace(/\n+$/, '').split('\n');
    return resized ? all.filter((row) => row.trim() !== '') : all;
  };
  const after = rows(tmux.run('capture-pane', '-p', '-e', '-t', pane));
  const was = rows(before.screen);
  // Above: exactly what was there; then the command line that ran attach, its message, a new prompt.
  // The whole pane in the message: what pushed the rows away is the cause to read.
  assert.deepEqual(after.slice(0, was.length - 1), was.slice(0, -1), `the rows above the command are as before; the pane:\n${after.join('\n')}`);
  assert.equal(after[was.length - 1], `$ ${join(work, 'limpet')} attach ${id}`, `the command line that ran attach; the pane:\n${after.join('\n')}`);
  const rest = after.slice(was.length).filter((l) => l.trim() !== '');
  assert.ok(rest.length === 2 && /^\[(detached from|session) /.test(rest[0]) && rest[1].trim() === '$', `nothing of the session is left on the pane:\n${after.join('\n')}`);
}

// ---- helpers ----------------------------------------------------------------------------------

async function spawn(command, label) {
  const s = await daemon.api('/api/sessions', { method: 'POST', body: JSON.stringify({ command, label, cols: PANE.cols, rows: PANE.rows, cwd: work }) });
  return s.id;
}

async function openPage(viewport) {
  const context = await browser.newContext({ viewport, ...(viewport.width < 500 ? { isMobile: true, hasTouch: true } : {}) });
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error('page error:', error.message));
  await page.goto(daemon.url);
  await waitForSnapshot(page, (s) => s.tabs.length >= 2 && s.tabs.every((x) => x.phase === 'live'), 'a fresh page opens the running sessions', 30_000);
  return page;
}

async function desktopTab(page, sessionId) {
  const s = await waitForSnapshot(page, (x) => x.tabs.some((tab) => tab.sessionId === sessionId), `a tab for ${sessionId}`);
  return s.tabs.find((tab) => tab.sessionId === sessionId).tabId;
}

async function activate(page, tabId) {
  await page.locator(`.tab[data-tab-id="${tabId}"] [role=tab]`).click();
  await waitForSnapshot(page, (s) => s.activeTabId === tabId, `tab ${tabId} active`);
}

const cellWidth = (page, tabId) => page.evaluate((tab) => window.limpet.terminal(tab).cellWidth, tabId);

/** `limpet attach` (a JVM starting on a loaded machine) is attached to the session. */
const waitForAttached = (id) => waitFor(async () => (await daemon.api(`/api/sessions/${id}`)).attached >= 1, 'limpet attach attached', 90_000);

async function waitForSize(id, cols, rows, what) {
  return waitFor(async () => {
    const info = await daemon.api(`/api/sessions/${id}`);
    return info.cols === cols && info.rows === rows ? info : null;
  }, what);
}

async function waitFor(check, what, timeoutMs = 30_000, seen = null) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const result = await check();
    if (result) return result;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for: ${what}${seen ? `; it shows:\n${await seen()}` : ''}`);
}

const text = (screen) => seen(screen).rows.map((r) => r.replace(/⟨[^⟩]*⟩/g, '')).join('\n');

function sampleScript() {
  return `#!/bin/sh
# A script with enough syntax for vim to colour: comments, strings, keywords, variables.
set -eu
greeting="hello, world"
for word in one two three; do
  if [ "$word" = two ]; then
    echo "$greeting: $word" # the middle one
  else
    printf '%s\\n' "$word"
  fi
done
case "\${1:-}" in
  -h|--help) echo "usage: sample.sh [-h]" ;;
  *) exit 0 ;;
esac
`;
}
