// Typing while reconnecting (docs/protocol.md, "Typing while reconnecting (web UI)").
import { describe, expect, it } from 'vitest';
import { connectAndList, flush, makeWorkspace, reconnect, session } from './support/workspace-harness';

describe('Workspace: typing while reconnecting', () => {
  it('keys typed while the link is down are held, shown as pending, and sent once, in order, right after the re-attach answers', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.workspace.input('tab1', 'before\r');
    h.network.last().drop();
    h.workspace.input('tab1', 'echo ');
    h.workspace.input('tab1', 'ahead\r');
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ phase: 'reconnecting', pendingKeys: 2 });
    await reconnect(h, [session('s1')]);
    expect(h.daemon.sent('pty_input')).toEqual([]); // not before the attach answers
    h.workspace.input('tab1', 'later'); // typed while the attach is in flight: queued behind
    h.daemon.attached('s1', 0);
    expect(h.daemon.sent('pty_input')).toEqual([{ type: 'pty_input', session_id: 's1', data: 'echo ahead\rlater' }]);
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ phase: 'live', pendingKeys: 0 });
    h.workspace.input('tab1', 'x');
    h.daemon.attached('s1', 0); // another attach (a desync) sends nothing again
    expect(h.daemon.sent('pty_input').map((c) => c.data)).toEqual(['echo ahead\rlater', 'x']);
  });

  it('keys typed before a new terminal is attached are sent after its first attach', async () => {
    const h = makeWorkspace();
    await connectAndList(h, []);
    h.workspace.newTerminal();
    h.workspace.input('tab1', 'ls\r');
    h.daemon.reply(h.daemon.sent('spawn_session')[0]!, { type: 'spawn_result', session: session('n1') });
    await flush();
    expect(h.daemon.sent('pty_input')).toEqual([]);
    h.daemon.attached('n1', 0);
    expect(h.daemon.sent('pty_input')).toEqual([{ type: 'pty_input', session_id: 'n1', data: 'ls\r' }]);
  });

  it('beyond 4 KiB while reconnecting further keys are refused with the bell and a toast; the held ones still go', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.network.last().drop();
    h.workspace.input('tab1', 'a'.repeat(4000));
    h.workspace.input('tab1', 'b'.repeat(200));
    const terminal = h.terminals.get('tab1')!;
    expect(terminal.bells).toBe(1);
    expect(h.workspace.snapshot.tabs[0]!.pendingKeys).toBe(1);
    expect(h.workspace.snapshot.toasts.map((t) => t.text)).toEqual([
      'Typing refused in “s1”: at most 4 KiB of keys can wait for the connection.',
    ]);
    h.workspace.input('tab1', 'c'.repeat(96)); // still fits exactly
    await reconnect(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    expect(h.daemon.sent('pty_input')).toEqual([{ type: 'pty_input', session_id: 's1', data: 'a'.repeat(4000) + 'c'.repeat(96) }]);
  });

  it('held keys for a session that turns out to have exited are not sent, and the page says so', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.network.last().drop();
    h.workspace.input('tab1', 'y');
    h.workspace.input('tab1', '\r');
    const exited = session('s1', { state: 'exited', exit_code: 1 });
    await reconnect(h, [exited]);
    h.daemon.attached('s1', 0, { session: exited });
    expect(h.daemon.sent('pty_input')).toEqual([]);
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ phase: 'exited', pendingKeys: 0 });
    expect(h.terminals.get('tab1')!.bells).toBe(1);
    expect(h.workspace.snapshot.toasts.map((t) => t.text)).toEqual(['“s1” has no running program: 2 keys not sent.']);
  });

  it('held keys of a tab whose session was removed meanwhile are owned up to in the closing toast', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1'), session('s2')]);
    h.daemon.attached('s1', 0);
    h.network.last().drop();
    h.workspace.input('tab1', 'q');
    await reconnect(h, [session('s2')]);
    expect(h.workspace.snapshot.toasts.map((t) => t.text)).toEqual([
      '“s1” was closed elsewhere (its session was removed), so its tab was closed. 1 key typed while reconnecting was not sent.',
    ]);
  });

  it('typing into a tab whose program has exited rings the bell and says so; nothing is sent', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0, { session: session('s1', { state: 'exited', exit_code: 0 }) });
    h.workspace.input('tab1', 'x');
    expect(h.daemon.sent('pty_input')).toEqual([]);
    expect(h.terminals.get('tab1')!.bells).toBe(1);
    expect(h.workspace.snapshot.toasts.map((t) => t.text)).toEqual(['“s1” has no running program: 1 key not sent.']);
  });

  it('a read-only view refuses keys out loud', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0, { read_only: true });
    h.workspace.input('tab1', 'x');
    expect(h.daemon.sent('pty_input')).toEqual([]);
    expect(h.workspace.snapshot.toasts.map((t) => t.text)).toEqual(['“s1” is read-only here: 1 key not sent.']);
  });
});
