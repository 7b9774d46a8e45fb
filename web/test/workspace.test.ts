import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../src/workspace/terminal-port';
import { FakeVisibility } from './support/fake-visibility';
import { flush, makeWorkspace, rememberedStore, session } from './support/workspace-harness';

/** The fake terminal of the tab that holds `sessionId`. */
function terminalOf(h: ReturnType<typeof makeWorkspace>, sessionId: string) {
  const tab = h.workspace.snapshot.tabs.find((t) => t.sessionId === sessionId)!;
  return h.terminals.get(tab.tabId)!;
}

async function connectAndList(h: ReturnType<typeof makeWorkspace>, sessions = [session('s1')]) {
  h.runtime.start();
  h.network.last().open();
  h.daemon.hello(sessions);
  await flush();
  h.daemon.reply(h.daemon.sent('list_sessions').pop()!, { type: 'session_list', sessions });
  await flush();
}

describe('Workspace', () => {
  it('leaves no subscription behind once disposed: the host, the page and its tabs\' terminals are let go', async () => {
    const h = makeWorkspace();
    await connectAndList(h);
    const terminal = terminalOf(h, 's1');
    const changes: unknown[] = [];
    h.workspace.subscribe((snapshot) => changes.push(snapshot));
    expect(h.visibility.listenerCount()).toBe(1);
    expect(terminal.titleListeners.size).toBe(1);

    h.workspace.dispose();
    h.runtime.stop();
    h.visibility.set(true);
    terminal.setTitle('vim');

    expect(h.visibility.listenerCount()).toBe(0);
    expect(terminal.titleListeners.size).toBe(0);
    expect(terminal.disposed).toBe(true);
    expect(h.workspace.snapshot.host.status).not.toBe('stopped');
    expect(changes).toEqual([]);
  });

  it('waits for initial_state before listing, and shows recovering while it does not come', async () => {
    const h = makeWorkspace();
    h.runtime.start();
    h.network.last().open();
    expect(h.workspace.snapshot.handshake).toBe('waiting');
    expect(h.daemon.sent('list_sessions')).toHaveLength(0);
    h.clock.advance(500);
    expect(h.workspace.snapshot.handshake).toBe('recovering');
    h.daemon.hello([]);
    expect(h.workspace.snapshot.handshake).toBe('ready');
    expect(h.daemon.sent('list_sessions')).toHaveLength(1);
  });

  it('shows the start-up recovery warnings that come with initial_state', async () => {
    const h = makeWorkspace();
    h.runtime.start();
    h.network.last().open();
    h.daemon.hello([], 'd-1', [{ code: 'worker_recovery_partial', message: '1 of 3 workers could not be recovered' }]);
    expect(h.workspace.snapshot.warnings).toEqual(['1 of 3 workers could not be recovered']);
  });

  it('a new terminal a person asks for is started, attached, and tracks the rendered offset', async () => {
    const h = makeWorkspace();
    await connectAndList(h, []);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
    h.workspace.newTerminal();
    const spawn = h.daemon.sent('spawn_session')[0]!;
    expect(spawn).toMatchObject({ cols: 100, rows: 30 });
    h.daemon.reply(spawn, { type: 'spawn_result', session: session('s9') });
    await flush();
    expect(h.daemon.sent('attach_session')[0]).toMatchObject({ session_id: 's9', cols: 100, rows: 30 });
    expect(h.daemon.sent('attach_session')[0]!.since).toBeUndefined();
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ phase: 'opening', loadedOnce: false });
    h.daemon.attached('s9', 0);
    h.daemon.output('s9', 6, '$ ls\r\n');
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ phase: 'live', loadedOnce: true, sessionId: 's9' });
    const terminal = h.terminals.get('tab1')!;
    expect(terminal.text).toBe('$ ls\r\n');
    h.workspace.persist();
    expect(JSON.parse(h.store.getItem('limpet.workspace')!).tabs[0].renderedOffset).toBe(-1);
    terminal.flush();
    h.workspace.persist();
    expect(JSON.parse(h.store.getItem('limpet.workspace')!).tabs[0]).toMatchObject({ serverSessionId: 's9', renderedOffset: 6, daemonInstanceId: 'd-1' });
  });

  it('a fresh page opens every running session the daemon has', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('a'), session('b', { state: 'exited', exit_code: 0 }), session('c')]);
    expect(h.workspace.snapshot.tabs.map((t) => t.sessionId)).toEqual(['a', 'c']);
    expect(h.workspace.snapshot.unclaimed.map((s) => s.id)).toEqual(['b']);
    expect(h.daemon.sent('spawn_session')).toHaveLength(0);
  });

  it('after a reload, a tab attaches afresh and draws its session\'s current screen, not one the page kept', async () => {
    const store = new MemoryStore();
    store.setItem('limpet.workspace', JSON.stringify({ version: 1, activeTabId: 't1', tabs: [
      { tabId: 't1', name: 'build', serverSessionId: 's1', daemonInstanceId: 'd-1', renderedOffset: 5, command: ['bash'], cwd: '/' },
    ] }));
    store.setItem('limpet.screen.t1', JSON.stringify({ offset: 5, daemonInstanceId: 'd-1', data: 'a screen an older page kept' }));
    const h = makeWorkspace(store);
    expect(h.terminals.get('t1')!.text).toBe('');
    await connectAndList(h, [session('s1', { end_offset: 11, label: 'build' })]);
    const attach = h.daemon.attached('s1', 11, { snapshot: true, end_offset: 11, session: session('s1', { end_offset: 11, label: 'build', cols: 90, rows: 30 }) });
    expect(attach.since).toBeUndefined();
    h.daemon.output('s1', 11, '[the screen]', 3);
    expect(h.terminals.get('t1')!.text).toBe('[the screen]');
    expect(h.terminals.get('t1')!.size()).toEqual({ cols: 90, rows: 30 });
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ name: 'build', phase: 'live' });
  });

  it('the terminal takes the session\'s size where its output reaches the offset of a resize', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    const terminal = h.terminals.get('tab1')!;
    expect(terminal.size()).toEqual({ cols: 80, rows: 24 });
    h.network.last().text({ type: 'session_resized', session_id: 's1', cols: 47, rows: 30, offset: 3 });
    const sizes: string[] = [];
    const write = terminal.write.bind(terminal);
    terminal.write = (data, done) => {
      sizes.push(`${terminal.cols}x${terminal.rows}:${typeof data === 'string' ? data : new TextDecoder().decode(data)}`);
      write(data, done);
    };
    h.daemon.output('s1', 6, 'abcdef');
    expect(sizes).toEqual(['80x24:abc', '47x30:def']);
    expect(h.workspace.snapshot.tabs[0]!.sizedFor).toEqual({ cols: 47, rows: 30 });
    h.network.last().text({ type: 'session_resized', session_id: 's1', cols: 100, rows: 30, offset: 6 });
    expect(terminal.size()).toEqual({ cols: 100, rows: 30 });
    expect(h.workspace.snapshot.tabs[0]!.sizedFor).toBeNull();
  });

  it('a viewer\'s size goes to the daemon once live; taking the size asks for it; opening alone takes nothing', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    const terminal = h.terminals.get('tab1')!;
    expect(h.daemon.sent('attach_session')[0]).toMatchObject({ cols: 100, rows: 30 });
    terminal.viewer = { cols: 90, rows: 20 };
    h.workspace.viewerResized('tab1');
    h.daemon.attached('s1', 0);
    terminal.viewer = { cols: 120, rows: 40 };
    h.workspace.viewerResized('tab1');
    // What was measured before the attach answered goes once it does; then each change.
    expect(h.daemon.sent('pty_resize')).toEqual([
      { type: 'pty_resize', session_id: 's1', cols: 90, rows: 20 }, { type: 'pty_resize', session_id: 's1', cols: 120, rows: 40 },
    ]);
    expect(h.daemon.sent('take_size')).toEqual([]);
    expect(h.workspace.snapshot.tabs[0]!.sizedFor).toEqual({ cols: 80, rows: 24 });
    h.workspace.takeSize('tab1');
    expect(h.daemon.sent('take_size')).toEqual([{ type: 'take_size', session_id: 's1' }]);
  });

  it('a tab opened before it was ever shown starts its session at the size the page\'s terminals measured', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.terminals.get('tab1')!.viewer = { cols: 132, rows: 41 };
    h.settings.newViewer = null; // + Terminal: the new tab asks for its session before it is first shown
    h.workspace.newTerminal();
    expect(h.daemon.sent('spawn_session').pop()).toMatchObject({ cols: 132, rows: 41 });
  });

  it('a terminal a person started takes its session\'s size when attached', async () => {
    const h = makeWorkspace();
    await connectAndList(h, []);
    h.workspace.newTerminal();
    h.daemon.reply(h.daemon.sent('spawn_session')[0]!, { type: 'spawn_result', session: session('s9') });
    await flush();
    h.daemon.attached('s9', 0);
    expect(h.daemon.sent('take_size')).toEqual([{ type: 'take_size', session_id: 's9' }]);
  });

  it('when the link drops: reconnecting overlay, then reattach from the received offset, overlap dropped', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.daemon.output('s1', 4, 'one\n');
    h.network.last().drop();
    expect(h.workspace.snapshot.tabs[0]!.phase).toBe('reconnecting');
    expect(h.workspace.snapshot.handshake).toBe('offline');
    h.clock.advance(100);
    h.network.last().open();
    h.daemon.hello([session('s1')]);
    await flush();
    h.daemon.reply(h.daemon.sent('list_sessions').pop()!, { type: 'session_list', sessions: [session('s1', { end_offset: 8 })] });
    await flush();
    expect(h.workspace.snapshot.sync.status).toBe('ready');
    const attach = h.daemon.attached('s1', 2);
    expect(attach.since).toBe(4);
    h.daemon.output('s1', 8, 'e\ntwo\n');
    expect(h.terminals.get('tab1')!.text).toBe('one\ntwo\n');
    expect(h.workspace.snapshot.tabs[0]!.phase).toBe('live');
  });

  it('a snapshot frame resets the terminal and the replay continues after it', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('vim')]);
    h.daemon.attached('vim', 100, { snapshot: true, truncated: true });
    h.daemon.output('vim', 150, '\x1b[2J[screen]', 3);
    h.daemon.output('vim', 152, 'ab');
    const terminal = h.terminals.get('tab1')!;
    expect(terminal.text).toBe('\x1b[2J[screen]ab');
    expect(terminal.resets).toBeGreaterThanOrEqual(1);
  });

  it('attaches lossless and acknowledges output with pty_ack only once xterm has rendered it', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    const attach = h.daemon.sent('attach_session')[0]!;
    expect(attach).toMatchObject({ session_id: 's1', flow: 'lossless' });
    expect(attach.window).toBeUndefined();
    h.daemon.attached('s1', 0);
    h.daemon.output('s1', 3, 'abc');
    expect(h.daemon.sent('pty_ack')).toEqual([]);
    h.terminals.get('tab1')!.flush();
    expect(h.daemon.sent('pty_ack')).toEqual([{ type: 'pty_ack', session_id: 's1', offset: 3 }]);
  });

  it('coalesces pty_ack: a partly rendered backlog is acknowledged by the ack timer of the injected clock', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.daemon.output('s1', 3, 'abc');
    h.daemon.output('s1', 6, 'def');
    h.terminals.get('tab1')!.flushOne();
    expect(h.daemon.sent('pty_ack')).toEqual([]);
    h.clock.advance(49);
    expect(h.daemon.sent('pty_ack')).toEqual([]);
    h.clock.advance(1);
    expect(h.daemon.sent('pty_ack')).toEqual([{ type: 'pty_ack', session_id: 's1', offset: 3 }]);
    h.terminals.get('tab1')!.flushOne();
    expect(h.daemon.sent('pty_ack').map((c) => c.offset)).toEqual([3, 6]);
  });

  it('switches to live with pty_flow when a backlog above the high-water mark renders nothing for the stall time (no detach), and back to lossless with an ack once drained', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('yes')]);
    h.daemon.attached('yes', 0);
    const chunk = 'y\n'.repeat(300);
    h.daemon.output('yes', 600, chunk);
    expect(h.daemon.sent('pty_flow')).toEqual([]);
    h.daemon.output('yes', 1200, chunk);
    h.clock.advance(999);
    expect(h.daemon.sent('pty_flow')).toEqual([]);
    h.clock.advance(1);
    expect(h.daemon.sent('pty_flow')).toEqual([{ type: 'pty_flow', session_id: 'yes', flow: 'live' }]);
    expect(h.daemon.sent('detach_session')).toEqual([]);
    const attaches = h.daemon.sent('attach_session').length;
    h.terminals.get('tab1')!.flush();
    expect(h.daemon.sent('pty_flow').pop()).toEqual({ type: 'pty_flow', session_id: 'yes', flow: 'lossless' });
    expect(h.daemon.sent('pty_ack')).toEqual([{ type: 'pty_ack', session_id: 'yes', offset: 1200 }]);
    expect(h.daemon.sent('attach_session')).toHaveLength(attaches);
  });

  it('a flood backlog above the high-water mark that the terminal keeps rendering sends no pty_flow; once rendering stops it goes live after the stall time', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('yes')]);
    h.daemon.attached('yes', 0);
    const terminal = terminalOf(h, 'yes');
    const chunk = 'y\n'.repeat(300);
    let end = 0;
    const send = () => {
      end += chunk.length;
      h.daemon.output('yes', end, chunk);
    };
    send();
    send(); // backlog 1200: above the mark
    for (let second = 0; second < 5; second++) {
      // Each second the daemon sends a chunk and the terminal renders one: the backlog stays at 1200.
      h.clock.advance(500);
      send();
      terminal.flushOne();
      h.clock.advance(500);
    }
    expect(h.daemon.sent('pty_flow')).toEqual([]);
    expect(h.daemon.sent('pty_ack').map((c) => c.offset)).toEqual([600, 1200, 1800, 2400, 3000]);

    send(); // the terminal stops rendering
    h.clock.advance(999);
    expect(h.daemon.sent('pty_flow')).toEqual([]);
    h.clock.advance(1);
    expect(h.daemon.sent('pty_flow')).toEqual([{ type: 'pty_flow', session_id: 'yes', flow: 'live' }]);
    h.clock.advance(60_000);
    expect(h.daemon.sent('pty_ack')).toHaveLength(5); // none while live
  });

  it('a tab the daemon attached live (no lossless for that session) sends no pty_ack and no pty_flow', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('old')]);
    h.daemon.attached('old', 0, { flow: 'live', window: null });
    const chunk = 'y\n'.repeat(300);
    h.daemon.output('old', 600, chunk);
    h.daemon.output('old', 1200, chunk);
    h.terminals.get('tab1')!.flush();
    h.clock.advance(1000);
    expect(h.daemon.sent('pty_ack')).toEqual([]);
    expect(h.daemon.sent('pty_flow')).toEqual([]);
  });

  it('a desync of any reason (ack_timeout too) re-attaches lossless from what the tab has', async () => {
    for (const reason of ['slow_consumer', 'output_lost', 'ack_timeout']) {
      const h = makeWorkspace();
      await connectAndList(h, [session('s1')]);
      h.daemon.attached('s1', 0);
      h.daemon.output('s1', 3, 'abc');
      h.network.last().text({ type: 'pty_desync', session_id: 's1', offset: 3, reason });
      expect(h.daemon.sent('attach_session').pop(), reason).toMatchObject({ since: 3, flow: 'lossless' });
      h.terminals.get('tab1')!.flush();
      expect(h.daemon.sent('pty_ack'), `${reason}: no ack to a dropped attachment`).toEqual([]);
      h.daemon.attached('s1', 3);
      h.daemon.output('s1', 5, 'de');
      h.terminals.get('tab1')!.flush();
      expect(h.daemon.sent('pty_ack'), reason).toEqual([{ type: 'pty_ack', session_id: 's1', offset: 5 }]);
    }
  });

  it('after a reconnect the re-attach asks lossless again and acks restart on the new attachment', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.daemon.output('s1', 1500, 'x'.repeat(1500));
    h.clock.advance(1000); // nothing rendered for the stall time
    expect(h.daemon.sent('pty_flow')).toEqual([{ type: 'pty_flow', session_id: 's1', flow: 'live' }]);
    h.network.last().drop();
    h.terminals.get('tab1')!.flush(); // rendered while offline: nothing to send
    h.clock.advance(100);
    h.network.last().open();
    h.daemon.hello([session('s1')]);
    await flush();
    h.daemon.reply(h.daemon.sent('list_sessions').pop()!, { type: 'session_list', sessions: [session('s1', { end_offset: 1500 })] });
    await flush();
    expect(h.daemon.attached('s1', 1500)).toMatchObject({ since: 1500, flow: 'lossless' });
    expect(h.daemon.sent('pty_flow')).toEqual([]);
    h.daemon.output('s1', 1510, 'y'.repeat(10));
    h.terminals.get('tab1')!.flush();
    expect(h.daemon.sent('pty_ack')).toEqual([{ type: 'pty_ack', session_id: 's1', offset: 1510 }]);
  });

  it('a backlog still above the high-water mark after a reconnect switches the new attachment to live once nothing renders for the stall time', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.daemon.output('s1', 1500, 'x'.repeat(1500));
    h.network.last().drop();
    h.clock.advance(100);
    h.network.last().open();
    h.daemon.hello([session('s1')]);
    await flush();
    h.daemon.reply(h.daemon.sent('list_sessions').pop()!, { type: 'session_list', sessions: [session('s1', { end_offset: 1500 })] });
    await flush();
    h.daemon.attached('s1', 1500);
    h.clock.advance(999);
    expect(h.daemon.sent('pty_flow')).toEqual([]);
    h.clock.advance(1);
    expect(h.daemon.sent('pty_flow')).toEqual([{ type: 'pty_flow', session_id: 's1', flow: 'live' }]);
  });

  it('a refused pty_flow lossless (invalid_flow) leaves the tab live: no more acks', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.daemon.output('s1', 1500, 'x'.repeat(1500));
    h.clock.advance(1000); // nothing rendered for the stall time: live
    h.terminals.get('tab1')!.flush();
    expect(h.daemon.sent('pty_flow').map((c) => c.flow)).toEqual(['live', 'lossless']);
    h.daemon.error('pty_flow', 's1', 'invalid_flow');
    h.daemon.output('s1', 1600, 'y'.repeat(100));
    h.terminals.get('tab1')!.flush();
    h.clock.advance(1000);
    expect(h.daemon.sent('pty_ack').map((c) => c.offset)).toEqual([1500]);
  });

  it('hiding the page sends pty_flow live for every lossless tab and no acks; showing it sends pty_flow lossless and an ack for each', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1'), session('s2'), session('old')]);
    h.daemon.attached('s1', 0);
    h.daemon.attached('s2', 0);
    h.daemon.attached('old', 0, { flow: 'live', window: null }); // a session that cannot hold its output back
    h.daemon.output('s1', 3, 'abc');
    h.daemon.output('s1', 6, 'def');
    terminalOf(h, 's1').flushOne(); // arms s1's ack timer
    h.daemon.output('s2', 4, 'wxyz');
    expect(h.daemon.sent('pty_flow')).toEqual([]);

    h.visibility.set(true);
    expect(h.daemon.sent('pty_flow')).toEqual([
      { type: 'pty_flow', session_id: 's1', flow: 'live' },
      { type: 'pty_flow', session_id: 's2', flow: 'live' },
    ]);
    for (const id of ['s1', 's2', 'old']) terminalOf(h, id).flush();
    h.daemon.output('s2', 6, 'zz');
    terminalOf(h, 's2').flush();
    h.clock.advance(60_000);
    expect(h.daemon.sent('pty_ack')).toEqual([]);

    h.visibility.set(false);
    expect(h.daemon.sent('pty_flow').slice(2)).toEqual([
      { type: 'pty_flow', session_id: 's1', flow: 'lossless' },
      { type: 'pty_flow', session_id: 's2', flow: 'lossless' },
    ]);
    expect(h.daemon.sent('pty_ack')).toEqual([
      { type: 'pty_ack', session_id: 's1', offset: 6 },
      { type: 'pty_ack', session_id: 's2', offset: 6 },
    ]);
    expect(h.daemon.sent('attach_session')).toHaveLength(3); // no re-attach: pty_flow only
  });

  it('a page hidden at start-up attaches lossless and switches every tab to live as soon as its attach is answered', async () => {
    const h = makeWorkspace(new MemoryStore(), { highWater: 1000, lowWater: 100 }, new FakeVisibility(true));
    await connectAndList(h, [session('s1'), session('s2')]);
    expect(h.daemon.sent('attach_session').map((c) => c.flow)).toEqual(['lossless', 'lossless']);
    h.daemon.attached('s1', 0);
    expect(h.daemon.sent('pty_flow')).toEqual([{ type: 'pty_flow', session_id: 's1', flow: 'live' }]);
    h.daemon.attached('s2', 0);
    expect(h.daemon.sent('pty_flow').pop()).toEqual({ type: 'pty_flow', session_id: 's2', flow: 'live' });
    h.daemon.output('s1', 3, 'abc');
    terminalOf(h, 's1').flush();
    h.clock.advance(60_000);
    expect(h.daemon.sent('pty_ack')).toEqual([]);
    h.visibility.set(false);
    expect(h.daemon.sent('pty_ack')).toEqual([{ type: 'pty_ack', session_id: 's1', offset: 3 }]);
  });

  it('tabs whose session starts while the page is hidden, or opened while it is, go live once attached', async () => {
    const h = makeWorkspace();
    await connectAndList(h, []);
    h.workspace.newTerminal(); // tab1
    h.visibility.set(true);
    h.daemon.reply(h.daemon.sent('spawn_session').pop()!, { type: 'spawn_result', session: session('n1') });
    await flush();
    expect(h.daemon.sent('attach_session').pop()).toMatchObject({ session_id: 'n1', flow: 'lossless' });
    h.daemon.attached('n1', 0);
    expect(h.daemon.sent('pty_flow')).toEqual([{ type: 'pty_flow', session_id: 'n1', flow: 'live' }]);

    h.workspace.newTerminal(); // tab2, created while hidden
    h.daemon.reply(h.daemon.sent('spawn_session').pop()!, { type: 'spawn_result', session: session('n2') });
    await flush();
    h.daemon.attached('n2', 0);
    expect(h.daemon.sent('pty_flow').pop()).toEqual({ type: 'pty_flow', session_id: 'n2', flow: 'live' });
  });

  it('above the ceiling the tab detaches, and re-attaches lossless from the received offset once drained', async () => {
    const h = makeWorkspace(); // high water 1000, ceiling 4000
    await connectAndList(h, [session('yes')]);
    h.daemon.attached('yes', 0);
    const chunk = 'y'.repeat(1500);
    h.daemon.output('yes', 1500, chunk);
    h.daemon.output('yes', 3000, chunk);
    expect(h.daemon.sent('detach_session')).toEqual([]);
    h.daemon.output('yes', 4500, chunk);
    expect(h.daemon.sent('detach_session')).toEqual([{ type: 'detach_session', session_id: 'yes' }]);
    h.network.last().text({ type: 'pty_desync', session_id: 'yes', offset: 4500, reason: 'slow_consumer' });
    const attaches = h.daemon.sent('attach_session').length;
    h.terminals.get('tab1')!.flush();
    const reattach = h.daemon.sent('attach_session');
    expect(reattach).toHaveLength(attaches + 1);
    expect(reattach.pop()).toMatchObject({ session_id: 'yes', since: 4500, flow: 'lossless' });
  });

  it('close removes the session and the tab; rename renames it', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1'), session('s2')]);
    h.workspace.rename('tab1', 'api');
    expect(h.daemon.sent('rename_session')).toEqual([expect.objectContaining({ session_id: 's1', label: 'api' })]);
    expect(h.workspace.snapshot.tabs[0]!.name).toBe('api');
    h.workspace.close('tab1');
    expect(h.daemon.sent('remove_session')).toEqual([expect.objectContaining({ session_id: 's1' })]);
    expect(h.workspace.snapshot.tabs.map((t) => t.tabId)).toEqual(['tab2']);
    expect(h.terminals.get('tab1')!.disposed).toBe(true);
  });

  it('a refused rename shows a toast that goes away by itself', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.workspace.rename('tab1', 'api');
    const rename = h.daemon.sent('rename_session').pop()!;
    h.daemon.reply(rename, { type: 'command_error', code: 'session_not_found', message: 'no such session', retryable: false });
    await flush();
    expect(h.workspace.snapshot.toasts.map((t) => t.text)).toEqual([expect.stringMatching(/^rename session failed: /)]);
    h.clock.advance(10_000);
    expect(h.workspace.snapshot.toasts).toEqual([]);
  });

  it('closing a tab stops its ack timer: nothing is acknowledged for a removed session', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.daemon.output('s1', 3, 'abc');
    h.daemon.output('s1', 6, 'def');
    h.terminals.get('tab1')!.flushOne(); // arms the ack timer
    h.workspace.close('tab1');
    h.clock.advance(1000);
    expect(h.daemon.sent('pty_ack')).toEqual([]);
  });

  it('closing a tab stops its stall timer: no pty_flow for a removed session', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1'), session('s2')]);
    h.daemon.attached('s1', 0);
    h.daemon.output('s1', 1500, 'x'.repeat(1500)); // arms the stall timer
    h.workspace.close('tab1');
    h.clock.advance(60_000);
    expect(h.daemon.sent('pty_flow')).toEqual([]);
  });

  it('a list reply from a replaced connection does not run a plan', async () => {
    const h = makeWorkspace();
    h.runtime.start();
    h.network.last().open();
    h.daemon.hello([]);
    const list = h.daemon.sent('list_sessions')[0]!;
    const old = h.network.last();
    h.runtime.replaceActive();
    old.handlers.onText(JSON.stringify({ type: 'session_list', req_id: list.req_id, sessions: [] }));
    await flush();
    expect(h.daemon.sent('spawn_session', old)).toHaveLength(0);
    expect(h.workspace.snapshot.tabs).toHaveLength(0);
  });

  it('a sessions_changed pushed before the list reply still runs the plan: a fresh page opens the running session', async () => {
    const h = makeWorkspace();
    h.runtime.start();
    h.network.last().open();
    h.daemon.hello([session('s1')]);
    await flush();
    const list = h.daemon.sent('list_sessions').pop()!;
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s1', { attached: 1 })] });
    h.daemon.reply(list, { type: 'session_list', sessions: [session('s1')] });
    await flush();
    expect(h.workspace.snapshot.tabs.map((t) => t.sessionId)).toEqual(['s1']);
    expect(h.daemon.sent('attach_session').map((c) => c.session_id)).toEqual(['s1']);
  });

  it('a remembered tab reattaches when a push overtook the list reply after a reload', async () => {
    const h = makeWorkspace(rememberedStore([{ tabId: 't1', name: 'build', serverSessionId: 's1' }]));
    h.runtime.start();
    h.network.last().open();
    h.daemon.hello([session('s1')]);
    await flush();
    const list = h.daemon.sent('list_sessions').pop()!;
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s1')] });
    h.daemon.reply(list, { type: 'session_list', sessions: [session('s1')] });
    await flush();
    expect(h.daemon.sent('attach_session').map((c) => c.session_id)).toEqual(['s1']);
  });

  it('sessions_changed updates labels and exit state of open tabs', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s1', { label: 'renamed', state: 'exited', exit_code: 2 })] });
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ name: 'renamed', phase: 'exited' });
  });
});
