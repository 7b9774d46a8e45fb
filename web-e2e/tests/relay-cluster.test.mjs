// The relay cluster with real parts: one nats-server on loopback, three `limpet relay
// --nats` nodes sharing one relay directory, a daemon `--relay n1,n2,n3` with real workers, the
// browser (Chromium) through node 2 and a CLI `limpet attach` through node 3 (a real PTY), all on
// the same session. Node 1 (holding the uplink) is killed with kill -9 mid-flood: the daemon moves,
// both clients resume with exact bytes. NATS is killed and restarted: the relays recover and the
// same tab and attach keep working. A host no node holds is reported offline at once.
// Every wait is bounded (count and time); every process is ended in after(), even on failure.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  launchBrowser, newPage, openFirstTerminal, screenOf, screenshot, snapshot, typeInTerminal, waitForPrompt, waitForScreen,
  waitForSnapshot,
} from './support/browser.mjs';
import { RemoteCli } from './support/cli.mjs';
import { Daemon } from './support/daemon.mjs';
import { NatsServer } from './support/nats.mjs';
import { Relay, pairingLink } from './support/relay.mjs';

const FLOOD = 1500;

let nats;
const nodes = [];
let daemon;
let browser;
let page;
let cli;
let attach;
let link;
let tabId;
let sessionId;

/** The link's path and secret on another node's origin: a client may land on any node. */
const onNode = (node, pairing) => node.origin + pairing.slice(new URL(pairing).origin.length);

async function awaitRelayStatus(predicate, description, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last = null;
  while (Date.now() < deadline) {
    last = await daemon.api('/api/status').catch(() => null);
    if (last?.relay && predicate(last.relay)) return last.relay;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the daemon's uplink never became ${description}; last: ${JSON.stringify(last?.relay)}`);
}

/** The `cl-N` numbers of a text's lines that are exactly `cl-N`, in order of appearance. */
const floodLines = (text) => text.split('\n').map((l) => l.trim()).filter((l) => /^cl-\d+$/.test(l)).map((l) => Number(l.slice(3)));
const exactLine = (line) => (text) => text.split('\n').some((l) => l.trim() === line);
const countLine = (text, line) => text.split('\n').filter((l) => l.trim() === line).length;
const range = (n) => Array.from({ length: n }, (_, i) => i + 1);

before(async () => {
  nats = await new NatsServer().start();
  nodes.push(new Relay({ nats: nats.url }));
  nodes.push(new Relay({ dir: nodes[0].dir, nats: nats.url }), new Relay({ dir: nodes[0].dir, nats: nats.url }));
  await Promise.all(nodes.map((n) => n.start()));
  await Promise.all(nodes.map((n) => n.awaitHealth(200)));
  daemon = new Daemon();
  nodes[0].enrol(daemon.dataRoot);
  daemon.extraArgs = ['--relay', nodes.map((n) => `${n.origin}/`).join(',')];
  await daemon.start();
  await awaitRelayStatus((r) => r.state === 'connected', 'connected');
  link = pairingLink(daemon.dataRoot);
  assert.equal(new URL(link).origin, nodes[0].origin, 'limpet pair links the first node');

  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(onNode(nodes[1], link));
  const s = await openFirstTerminal(page);
  tabId = s.activeTabId;
  sessionId = s.tabs[0].sessionId;
  await waitForPrompt(page, tabId);

  cli = new RemoteCli();
  cli.pairJoin('far', onNode(nodes[2], link));
  attach = cli.attach('far', sessionId);
});

after(async () => {
  await attach?.stop().catch(() => {});
  await cli?.cleanup().catch(() => {});
  await browser?.close().catch(() => {});
  await daemon?.cleanup().catch(() => {});
  for (const n of [...nodes].reverse()) await n.cleanup().catch(() => {});
  await nats?.cleanup().catch(() => {});
});

test('the browser on node 2 and the CLI on node 3 see the same session, whose uplink is on node 1', async (t) => {
  const t0 = Date.now();
  assert.equal(new URL(page.url()).origin, nodes[1].origin, 'the page comes from node 2');
  const holder = await nodes[0].health();
  assert.ok(holder.body?.uplinks > 0, `node 1 holds the uplink: ${JSON.stringify(holder.body)}`);
  for (const n of nodes.slice(1)) assert.equal((await n.health()).body?.uplinks ?? 0, 0, `${n.origin} holds no uplink`);
  await typeInTerminal(page, 'echo ready-$((6*7))\n');
  await waitForScreen(page, tabId, exactLine('ready-42'), 'the browser\'s own command');
  t.diagnostic(`browser echo: ${Date.now() - t0} ms`);
  await attach.waitFor(exactLine('ready-42'), 'the browser\'s command output in the CLI attach', 30_000);
  t.diagnostic(`CLI attached and saw it: ${Date.now() - t0} ms`);
  attach.type('echo from-cli-$((7*7))\r');
  await waitForScreen(page, tabId, exactLine('from-cli-49'), 'the CLI\'s typing in the browser', 15_000);
  await attach.waitFor(exactLine('from-cli-49'), 'the CLI\'s own typing');
  t.diagnostic(`CLI typing seen in both: ${Date.now() - t0} ms`);
});

test('node 1 killed mid-flood: the daemon moves, the browser and the CLI resume with every line once, in order', async (t) => {
  const t0 = Date.now();
  const node1 = nodes[0].origin;
  const before = attach.output.length;
  // Slow enough (a sleep per line) that the flood spans the kill and the failover.
  await typeInTerminal(page, `for i in $(seq 1 ${FLOOD}); do echo cl-$i; sleep 0.01; done; echo flood-$((1+1))-done\n`);
  await waitForScreen(page, tabId, (t) => floodLines(t).length >= 200, 'the flood to be under way', 30_000);
  await nodes[0].kill9();
  const killedMs = Date.now() - t0;
  const killedAt = floodLines(await screenOf(page, tabId)).length;

  // Watch the page while it recovers: it must go through a non-live state (its channel through
  // node 2 to node 1 is gone) and come back live; bounded in time.
  let browserDropped = false;
  const deadline = Date.now() + 90_000;
  const relay = await awaitRelayStatus((r) => r.state === 'connected' && !r.url.startsWith(node1), 'connected to another node');
  assert.ok(nodes.slice(1).some((n) => relay.url.startsWith(n.origin)), relay.url);
  t.diagnostic(`node 1 killed at line ${killedAt} (${killedMs} ms); uplink moved to ${relay.url} at ${Date.now() - t0} ms`);
  let text = '';
  while (Date.now() < deadline) {
    const s = await snapshot(page);
    if (s.host !== 'online' || s.tabs[0]?.phase !== 'live') browserDropped = true;
    text = await screenOf(page, tabId);
    if (s.host === 'online' && s.tabs[0]?.phase === 'live' && exactLine('flood-2-done')(text)) break;
    await page.waitForTimeout(50);
  }
  assert.ok(exactLine('flood-2-done')(text), `the browser did not get to the end of the flood:\n${text.slice(-2000)}`);
  await attach.waitFor(exactLine('flood-2-done'), 'the end of the flood in the CLI', 60_000);
  t.diagnostic(`both clients at the end of the flood: ${Date.now() - t0} ms; the browser went through a non-live state: ${browserDropped}`);
  await screenshot(page, '62-cluster-after-node-1-killed');

  assert.ok(killedAt < FLOOD, `node 1 was killed mid-flood (at line ${killedAt} of ${FLOOD})`);
  assert.ok(attach.output.slice(before).includes('limpet: reconnecting'), 'the CLI lost its channel through node 3 and reconnected');
  // Exactness. The browser's terminal keeps 10 000 lines of scrollback and screenText() returns the
  // whole buffer, so every flood line must be there: all of 1..FLOOD, each once, in order. The CLI
  // shows a screen (it paints its own model of the session, as tmux does): its last lines must be
  // the flood's last lines, each once, in order, then the end.
  // (The browser going through a non-live state is recorded, not required: a reconnect can be
  // faster than the 50 ms poll.)
  assert.deepEqual(floodLines(text), range(FLOOD), `browser: every cl-N once, in order (dropped: ${browserDropped})`);
  assert.equal(countLine(text, 'flood-2-done'), 1);
  const cliScreen = await attach.screen();
  const shown = floodLines(cliScreen);
  assert.ok(shown.length >= 20, `CLI: the flood's last lines on its screen:\n${cliScreen}`);
  assert.deepEqual(shown, range(FLOOD).slice(FLOOD - shown.length), `CLI: the flood's last lines, each once, in order:\n${cliScreen}`);
  assert.equal(countLine(cliScreen, 'flood-2-done'), 1);
});

test('NATS killed and restarted: the relays recover, the same tab and attach keep working', async () => {
  await nats.kill9();
  for (const n of nodes.slice(1)) await n.awaitHealth(503, 30_000);
  await nats.start();
  for (const n of nodes.slice(1)) await n.awaitHealth(200, 60_000);
  await waitForSnapshot(page, (s) => s.host === 'online' && s.tabs[0]?.phase === 'live', 'the tab live after NATS came back', 60_000);
  assert.equal((await snapshot(page)).tabs[0].sessionId, sessionId);
  await typeInTerminal(page, 'echo after-nats-$((5*5))\n');
  const screen = await waitForScreen(page, tabId, exactLine('after-nats-25'), 'typing after NATS restarted', 30_000);
  await attach.waitFor(exactLine('after-nats-25'), 'the line typed after NATS restarted in the CLI', 60_000);
  assert.equal(countLine(screen, 'after-nats-25'), 1, screen.slice(-2000));
  const cliScreen = await attach.screen();
  assert.equal(countLine(cliScreen, 'after-nats-25'), 1, cliScreen);
  await screenshot(page, '63-cluster-after-nats-restart');
});

test('a host no node holds is reported offline at once, through any node', async (t) => {
  const secret = new URL(link).hash;
  const ghost = nodes[1].addHost().split('.')[0];
  for (const [name, node] of [['ghost2', nodes[1]], ['ghost3', nodes[2]]]) {
    cli.pairJoin(name, `${node.origin}/h/${ghost}${secret}`);
    const r = cli.run(['ls', '--host', name], 20_000);
    assert.notEqual(r.status, 0, `ls --host ${name}: ${r.stdout}`);
    // "At once": the relay's answer (host_offline), not the client's connect timeout running out, which
    // would say so instead. How long it took (the JVM's start included) is shown, never asserted.
    assert.match(r.stderr, /host.offline/i, r.stderr);
    t.diagnostic(`${name}: host offline in ${r.ms} ms (with the JVM's start)`);
  }
  // The real host once its daemon is gone: reported offline, not left hanging.
  await attach.stop();
  await daemon.cleanup();
  // Bounds for a loaded machine, not a timing claim: a hanging client would never say host_offline.
  const deadline = Date.now() + 60_000;
  let r;
  while (Date.now() < deadline) {
    r = cli.run(['ls', '--host', 'far'], 40_000);
    if (/host.offline/i.test(r.stderr)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.match(r.stderr, /host.offline/i, r.stderr);
  t.diagnostic(`the stopped daemon's host: offline in ${r.ms} ms`);
});
