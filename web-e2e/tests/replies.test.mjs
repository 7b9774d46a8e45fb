// A program's terminal queries: a shell that asked its terminal questions while no page
// was open must get no answers typed onto its prompt when a page opens (the page drops what xterm
// answers while it writes the replay), and a live question gets one answer. What a person types is
// never taken for an answer (it goes as typed input, held while the link is down).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  launchBrowser, newPage, snapshot, typeInTerminal, waitForLiveTab, waitForPrompt, waitForScreen,
} from './support/browser.mjs';
import { Daemon } from './support/daemon.mjs';

let daemon;
let browser;

before(async () => {
  daemon = await new Daemon().start();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await daemon?.cleanup();
});

const capture = async (id) => (await daemon.api(`/api/sessions/${id}/capture`)).text;

async function until(check, description, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('answers to queries a shell printed while no page was open never land on its prompt', async () => {
  const shell = await daemon.api('/api/sessions', {
    method: 'POST', body: JSON.stringify({ command: ['bash', '--norc', '--noprofile', '-i'], label: 'asker' }),
  });
  // Device attributes, cursor position, background colour: each makes xterm answer.
  await daemon.api(`/api/sessions/${shell.id}/input`, {
    method: 'POST', body: JSON.stringify({ data: "printf 'asked\\033[c\\033[6n\\033]11;?\\007\\n'\r" }),
  });
  await until(async () => (await capture(shell.id)).includes('\nasked'), 'the shell to print its queries');

  const page = await newPage(browser);
  await page.goto(daemon.url);
  await waitForLiveTab(page, 1);
  const s = await snapshot(page);
  const tab = s.tabs.find((t) => t.sessionId === shell.id) ?? s.tabs[0];
  if (tab.sessionId !== shell.id) {
    await page.click(`.session[data-session-id="${shell.id}"]`);
  }
  const shown = (await snapshot(page)).tabs.find((t) => t.sessionId === shell.id);
  await waitForScreen(page, shown.tabId, 'asked', 'the replayed queries');
  await new Promise((r) => setTimeout(r, 1000)); // any answer would have been sent by now
  await typeInTerminal(page, 'echo after-$((4+5))\n');
  await until(async () => (await capture(shell.id)).includes('after-9'), 'the command after the replay');
  const screen = await capture(shell.id);
  const prompt = screen.slice(screen.indexOf('\nasked'));
  assert.doesNotMatch(prompt, /\d;\d+c|\d+;\d+R|rgb:/, `no answer reached the shell:\n${screen}`);
  await page.close();
});

test('what a person types goes as typed input; only what xterm answers to a live query goes as a reply', async () => {
  const page = await newPage(browser);
  const inputs = [];
  // Keys leave the page as binary pty_input frames (kind 2): offset 1 marks xterm's own reply.
  page.on('websocket', (ws) => ws.on('framesent', ({ payload }) => {
    if (typeof payload === 'string') {
      assert.doesNotMatch(payload, /"pty_input"/, 'keys never go as JSON text');
      return;
    }
    const frame = Buffer.from(payload);
    if (frame[0] !== 2) return;
    const payloadStart = 2 + frame[1] + 8;
    inputs.push({ data: frame.subarray(payloadStart).toString('utf8'), reply: frame.readBigInt64BE(2 + frame[1]) === 1n });
  }));
  await page.goto(daemon.url);
  const { activeTabId: tabId } = await waitForLiveTab(page, 1); // the shell of the test above
  await typeInTerminal(page, 'echo typed-$((2+3))\n');
  await waitForScreen(page, tabId, (t) => t.split('\n').some((l) => l.trim() === 'typed-5'), 'the typed command');
  assert.ok(inputs.length > 0);
  assert.deepEqual(inputs.filter((m) => m.reply), [], 'no key a person typed was sent as a reply');

  await typeInTerminal(page, "printf '\\033[6n'; sleep 1\n");
  const typed = inputs.length;
  await waitForScreen(page, tabId, (t) => /\[6n'; sleep 1\s*\n/.test(t), 'the query command');
  const answer = await (async () => {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const found = inputs.find((m) => /\x1b\[\d+;\d+R/.test(m.data));
      if (found) return found;
      await page.waitForTimeout(100);
    }
    return null;
  })();
  assert.ok(answer, `xterm answered the cursor position query: ${JSON.stringify(inputs.slice(typed - 1))}`);
  assert.equal(answer.reply, true, 'the answer went as a reply');
  await page.close();
});
