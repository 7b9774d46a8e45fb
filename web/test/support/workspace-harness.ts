import { DaemonClient } from '../../src/client/daemon-client';
import { HostRuntime } from '../../src/client/host-runtime';
import { decodeFrame, encodeFrame, FRAME_INPUT } from '../../src/protocol/binary-frames';
import type { SessionInfo } from '../../src/protocol/messages';
import { Workspace } from '../../src/workspace/workspace';
import { MemoryStore } from '../../src/workspace/terminal-port';
import { FakeClock } from './fake-clock';
import { FakeTerminal } from './fake-terminal';
import { FakeVisibility } from './fake-visibility';
import { FakeNetwork, type FakeConnection } from './fake-transport';

export const session = (id: string, extra: Partial<SessionInfo> = {}): SessionInfo => ({
  id, label: id, command: ['bash', '-l'], cwd: '/home/me', state: 'running', pid: 1, exit_code: null, exit_signal: null,
  created_at: '2026-01-01T00:00:00Z', cols: 80, rows: 24, end_offset: 0, attached: 0, ...extra,
});

export const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A workspace wired to fake connections, terminals and page visibility; the test plays the daemon. */
export function makeWorkspace(store = new MemoryStore(), flowLimits = { highWater: 1000, lowWater: 100 }, visibility = new FakeVisibility(),
  options: { tabPrefix?: string; openEverySessionOnFreshPage?: boolean } = {}) {
  const clock = new FakeClock();
  const network = new FakeNetwork();
  const terminals = new Map<string, FakeTerminal>();
  /** What a new tab's terminal measured when created (null: never shown yet, as a tab just opened). */
  const settings: { newViewer: { cols: number; rows: number } | null } = { newViewer: { cols: 100, rows: 30 } };
  let nextTab = 1;
  const runtime = new HostRuntime({
    clock,
    createClient: (_role, name) => new DaemonClient({
      name, transportFactory: network.factory, clock,
      policy: { connectTimeoutMs: 1000, retryDelay: () => 100 },
      hello: () => ({ type: 'hello', clientSessionKey: 'test-key-123', protocol: 1 }),
    }),
  });
  const workspace = new Workspace({
    runtime, clock, visibility, session: store, flowLimits, recoveringAfterMs: 500,
    newTabId: () => `${options.tabPrefix ?? ''}tab${nextTab++}`,
    ...(options.openEverySessionOnFreshPage === undefined ? {} : { openEverySessionOnFreshPage: options.openEverySessionOnFreshPage }),
    createTerminal: (tabId) => {
      const terminal = new FakeTerminal();
      terminal.viewer = settings.newViewer;
      terminals.set(tabId, terminal);
      return terminal;
    },
  });
  const daemon = {
    /**
     * Commands of a type the client sent on the current connection. Keys travel as binary frames
     * only (see keysAsFrames); `pty_input` lists them decoded, in the form of the text command.
     */
    sent(type: string, connection: FakeConnection = network.last()): Record<string, unknown>[] {
      if (type === 'pty_input') return inputFrames(connection);
      return connection.commands().filter((c) => c.type === type);
    },
    /** What the client sent on the current connection as binary frames and as text `pty_input`, separately. */
    keysAsFrames(connection: FakeConnection = network.last()) {
      return { frames: inputFrames(connection), text: connection.commands().filter((c) => c.type === 'pty_input') };
    },
    /** Sends an event the daemon pushes (input_waiting, input_undelivered...). */
    push(message: Record<string, unknown>) {
      network.last().text(message);
    },
    reply(command: Record<string, unknown>, message: Record<string, unknown>) {
      network.last().text({ ...message, req_id: command.req_id });
    },
    hello(sessions: SessionInfo[] = [], instance = 'd-1', warnings: { code: string; message: string }[] = []) {
      network.last().text({ type: 'initial_state', protocol: 1, daemon_instance_id: instance, version: '0.1.0', backend: 'embedded', degraded: [], sessions, warnings });
    },
    /** Sends an error the way the daemon answers a command without req_id (pty_ack, pty_flow). */
    error(command: string, sessionId: string, code: string) {
      network.last().text({ type: 'command_error', command, session_id: sessionId, code, message: code, retryable: false });
    },
    output(sessionId: string, endOffset: number, text: string, kind = 1) {
      network.last().handlers.onBinary(encodeFrame(kind, sessionId, endOffset, new TextEncoder().encode(text)));
    },
    /**
     * Answers the latest attach of `sessionId` with a replay starting at `replayFrom`, granting
     * lossless with the default 4 MiB window unless `extra` says otherwise.
     */
    attached(sessionId: string, replayFrom: number, extra: Record<string, unknown> = {}) {
      const attach = this.sent('attach_session').filter((c) => c.session_id === sessionId).pop()!;
      this.reply(attach, {
        type: 'attach_result', session_id: sessionId, session: session(sessionId), replay_from: replayFrom,
        end_offset: replayFrom, truncated: false, snapshot: false, read_only: false, flow: 'lossless', window: 4 * 1024 * 1024, ...extra,
      });
      return attach;
    },
  };
  return { clock, network, runtime, workspace, terminals, daemon, store, visibility, settings };
}

export type Harness = ReturnType<typeof makeWorkspace>;

const utf8 = new TextDecoder();

/** The pty_input frames a connection carried, decoded: offset 1 is a terminal's reply. */
function inputFrames(connection: FakeConnection): Record<string, unknown>[] {
  return connection.sent.filter((d): d is Uint8Array => typeof d !== 'string').map((bytes) => decodeFrame(bytes)!)
    .filter((f) => f.kind === FRAME_INPUT)
    .map((f) => ({ type: 'pty_input', session_id: f.sessionId, data: utf8.decode(f.payload), ...(f.offset === 1 ? { reply: true } : {}) }));
}

/** Connects, says hello as daemon `instance`, and answers the list request with `sessions`. */
export async function connectAndList(h: Harness, sessions: SessionInfo[] = [session('s1')], instance = 'd-1') {
  h.runtime.start();
  await answerList(h, sessions, instance);
}

/** Drops the connection and comes back (the daemon may have changed), answering the new list. */
export async function reconnect(h: Harness, sessions: SessionInfo[], instance = 'd-1') {
  h.network.last().drop();
  h.clock.advance(100);
  await answerList(h, sessions, instance);
}

async function answerList(h: Harness, sessions: SessionInfo[], instance: string) {
  h.network.last().open();
  h.daemon.hello(sessions, instance);
  await flush();
  h.daemon.reply(h.daemon.sent('list_sessions').pop()!, { type: 'session_list', sessions });
  await flush();
}

/** A page that remembers `tabs` (as after a reload). */
export function rememberedStore(tabs: Record<string, unknown>[]) {
  const store = new MemoryStore();
  const defaults = { daemonInstanceId: 'd-1', renderedOffset: -1, command: ['bash', '-l'], cwd: '/home/me', start: null, listed: true, title: null, userNamed: false };
  store.setItem('limpet.workspace', JSON.stringify({ version: 1, activeTabId: tabs[0]?.tabId ?? null, tabs: tabs.map((t) => ({ ...defaults, ...t })) }));
  return store;
}
