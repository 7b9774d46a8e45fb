// The page starts a session only when a person asks: not on a reload, a reconnect, a
// daemon restart or a list change. Exited sessions show their exit and a Restart button; removed
// ones close their tab; unknown ones say so and offer New.
import { describe, expect, it } from 'vitest';
import {
  connectAndList, flush, makeWorkspace, reconnect, rememberedStore, session, type Harness,
} from './support/workspace-harness';

const deploy = { command: ['make', 'deploy'], cwd: '/srv/app', label: 'make' };

/** Answers the latest spawn_session with `id` and the attach that follows. */
async function answerSpawn(h: Harness, id: string, extra = {}) {
  const spawn = h.daemon.sent('spawn_session').pop()!;
  h.daemon.reply(spawn, { type: 'spawn_result', session: session(id, extra) });
  await flush();
  h.daemon.attached(id, 0, { session: session(id, extra) });
  return spawn;
}

describe('Workspace: no session is started unless a person asks', () => {
  it('a page opened with no tab on a daemon that runs nothing starts nothing: it waits, empty, for a person', async () => {
    const h = makeWorkspace();
    const old = session('old', { state: 'exited', exit_code: 0 });
    await connectAndList(h, [old]);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
    expect(h.daemon.sent('attach_session')).toEqual([]);
    expect(h.workspace.snapshot.tabs).toEqual([]);
    expect(h.workspace.snapshot.sync.status).toBe('ready'); // the page shows "No terminal open in this tab"
    expect(h.workspace.snapshot.unclaimed.map((s) => s.id)).toEqual(['old']); // in the sidebar, for a person to open
    h.clock.advance(60_000);
    await reconnect(h, [old]);
    await reconnect(h, [old], 'd-2'); // nor after a daemon restart
    expect(h.daemon.sent('spawn_session')).toEqual([]);
    expect(h.workspace.snapshot.tabs).toEqual([]);
    h.workspace.newTerminal(); // a person asks: exactly one start
    expect(h.daemon.sent('spawn_session')).toHaveLength(1);
    await answerSpawn(h, 'n1');
    expect(h.workspace.snapshot.tabs).toMatchObject([{ sessionId: 'n1', phase: 'live' }]);
  });

  it('a page opened with no tab while the daemon is unreachable starts nothing once it connects', async () => {
    const h = makeWorkspace();
    h.runtime.start();
    await reconnect(h, []); // the first attempt fails before it opens; the retry connects
    expect(h.network.connections).toHaveLength(2);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
    expect(h.workspace.snapshot.tabs).toEqual([]);
  });

  it('after a reload, a tab whose command exited shows its exit status and a Restart offer, and starts nothing', async () => {
    const h = makeWorkspace(rememberedStore([{ tabId: 't1', name: 'make', serverSessionId: 's1', renderedOffset: 4, ...deploy }]));
    const exited = session('s1', { ...deploy, state: 'exited', exit_code: 0, end_offset: 4 });
    await connectAndList(h, [exited]);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
    const attach = h.daemon.sent('attach_session');
    expect(attach).toEqual([expect.objectContaining({ session_id: 's1' })]);
    expect(attach[0]!.since).toBeUndefined();
    h.daemon.attached('s1', 4, { session: exited, snapshot: true });
    h.daemon.output('s1', 4, 'done', 3);
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({
      phase: 'exited', sessionId: 's1', offer: { kind: 'exited', button: 'Restart', message: 'The program exited with code 0.' },
    });
    expect(h.terminals.get('t1')!.text).toBe('done');
    await reconnect(h, [exited]);
    await reconnect(h, [exited], 'd-1');
    expect(h.daemon.sent('spawn_session')).toEqual([]);
  });

  it('Restart starts the same command in the same directory as a new session bound to the tab; the old one is left alone', async () => {
    const h = makeWorkspace(rememberedStore([{ tabId: 't1', name: 'make', serverSessionId: 's1', ...deploy }]));
    const exited = session('s1', { ...deploy, state: 'exited', exit_code: 2 });
    await connectAndList(h, [exited]);
    h.daemon.attached('s1', 0, { session: exited });
    h.workspace.restart('t1');
    h.workspace.restart('t1'); // a double click starts it once
    expect(h.daemon.sent('spawn_session')).toEqual([expect.objectContaining({ command: ['make', 'deploy'], cwd: '/srv/app' })]);
    expect(h.daemon.sent('spawn_session')[0]!.label).toBeUndefined(); // "make" is the daemon's default label
    expect(h.daemon.sent('detach_session')).toEqual([expect.objectContaining({ session_id: 's1' })]);
    expect(h.daemon.sent('remove_session')).toEqual([]);
    await answerSpawn(h, 's2', deploy);
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ tabId: 't1', sessionId: 's2', phase: 'live', offer: null });
  });

  it('a session removed while the page was away closes its tab with a toast, and no session is started', async () => {
    const h = makeWorkspace(rememberedStore([
      { tabId: 't1', name: 'make', serverSessionId: 'gone', ...deploy },
      { tabId: 't2', name: 'bash', serverSessionId: 's2' },
    ]));
    await connectAndList(h, [session('s2')]);
    expect(h.workspace.snapshot.tabs.map((t) => t.tabId)).toEqual(['t2']);
    expect(h.workspace.snapshot.toasts.map((t) => t.text)).toEqual(['“make” was closed elsewhere (its session was removed), so its tab was closed.']);
    expect(h.terminals.get('t1')!.disposed).toBe(true);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
    h.clock.advance(10_000);
    expect(h.workspace.snapshot.toasts).toEqual([]);
  });

  it('a session removed elsewhere while connected (sessions_changed without it) closes its tab; nothing is started, even on reconnect', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1'), session('s2')]);
    h.daemon.attached('s1', 0);
    h.daemon.attached('s2', 0);
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s2')] });
    expect(h.workspace.snapshot.tabs.map((t) => t.sessionId)).toEqual(['s2']);
    expect(h.workspace.snapshot.toasts).toHaveLength(1);
    await reconnect(h, [session('s2')]);
    expect(h.workspace.snapshot.tabs.map((t) => t.sessionId)).toEqual(['s2']);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
  });

  it('the last tab closed elsewhere leaves the page empty: no shell is started in its place', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.network.last().text({ type: 'sessions_changed', sessions: [] });
    expect(h.workspace.snapshot.tabs).toEqual([]);
    await reconnect(h, []);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
    expect(h.workspace.snapshot.tabs).toEqual([]);
  });

  it('a list older than a spawn does not close the new tab; a later attach refusal does', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.workspace.newTerminal();
    const spawn = h.daemon.sent('spawn_session')[0]!;
    h.daemon.reply(spawn, { type: 'spawn_result', session: session('n1') });
    await flush();
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s1')] }); // computed before the spawn
    expect(h.workspace.snapshot.tabs.map((t) => t.sessionId)).toEqual(['s1', 'n1']);
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s1'), session('n1')] });
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s1')] }); // now it was removed
    expect(h.workspace.snapshot.tabs.map((t) => t.sessionId)).toEqual(['s1']);
    expect(h.daemon.sent('spawn_session')).toHaveLength(1);
  });

  it('the list the daemon pushes before it answers a spawn counts: removing that session later closes the new tab', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.workspace.newTerminal();
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s1'), session('n1')] }); // pushed before the reply
    await answerSpawn(h, 'n1');
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s1')] });
    expect(h.workspace.snapshot.tabs.map((t) => t.sessionId)).toEqual(['s1']);
    expect(h.daemon.sent('spawn_session')).toHaveLength(1);
  });

  it('a live tab whose session no list has shown is asked about by attaching again when a list lacks it; session_not_found closes it', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.workspace.newTerminal();
    await answerSpawn(h, 'n1');
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s1')] });
    expect(h.workspace.snapshot.tabs.map((t) => t.sessionId)).toEqual(['s1', 'n1']);
    const again = h.daemon.sent('attach_session').filter((a) => a.session_id === 'n1');
    expect(again).toHaveLength(2);
    h.daemon.reply(again[1]!, { type: 'command_error', command: 'attach_session', code: 'session_not_found', message: 'no session n1', retryable: false });
    await flush();
    expect(h.workspace.snapshot.tabs.map((t) => t.sessionId)).toEqual(['s1']);
    expect(h.daemon.sent('spawn_session')).toHaveLength(1);
  });

  it('an attach answered session_not_found is never answered with a new session: the tab waits for a person or closes with the list', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]); // listed, and removed before the attach arrives
    const attach = h.daemon.sent('attach_session').pop()!;
    h.daemon.reply(attach, { type: 'command_error', command: 'attach_session', code: 'session_not_found', message: 'no session s1', retryable: false });
    await flush();
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ phase: 'failed', offer: { kind: 'attach_failed', action: 'retry' } });
    h.network.last().text({ type: 'sessions_changed', sessions: [] });
    expect(h.workspace.snapshot.tabs).toEqual([]);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
  });

  it('a tab of another daemon says its session no longer exists and offers New; only New starts its command again', async () => {
    const h = makeWorkspace(rememberedStore([{ tabId: 't1', name: 'make', serverSessionId: 's1', ...deploy }]));
    await connectAndList(h, [session('s1')], 'd-2'); // same id, another daemon
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ phase: 'failed', offer: { kind: 'no_longer_exists', button: 'New' } });
    expect(h.workspace.snapshot.tabs[0]!.offer!.message).toContain('no longer exists');
    expect(h.daemon.sent('spawn_session')).toEqual([]);
    expect(h.daemon.sent('attach_session')).toEqual([]);
    h.workspace.restart('t1');
    expect(h.daemon.sent('spawn_session')).toEqual([expect.objectContaining({ command: ['make', 'deploy'], cwd: '/srv/app' })]);
    await answerSpawn(h, 'n1', deploy);
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ sessionId: 'n1', phase: 'live' });
  });

  it('a recoverable session is attached only when its tab is shown, and one the daemon refuses is offered, never respawned', async () => {
    const h = makeWorkspace(rememberedStore([
      { tabId: 't1', name: 'bash', serverSessionId: 's1' },
      { tabId: 't2', name: 'claude', serverSessionId: 's2', command: ['claude'] },
    ]));
    const lost = session('s2', { state: 'recoverable', command: ['claude'] });
    await connectAndList(h, [session('s1'), lost]);
    expect(h.daemon.sent('attach_session').map((a) => a.session_id)).toEqual(['s1']);
    h.workspace.activate('t2');
    expect(h.daemon.sent('attach_session').map((a) => a.session_id)).toEqual(['s1', 's2']);
    const attach = h.daemon.sent('attach_session').pop()!;
    h.daemon.reply(attach, { type: 'command_error', command: 'attach_session', code: 'session_not_found', message: 'no session s2', retryable: false });
    await flush();
    expect(h.workspace.snapshot.tabs[1]).toMatchObject({ phase: 'failed', offer: { kind: 'recoverable', button: 'Restart: continue' } });
    expect(h.daemon.sent('spawn_session')).toEqual([]);
    expect(h.daemon.sent('attach_session')).toHaveLength(2);
  });

  it('a recoverable session in the tab a reload shows is offered Restart, not revived, until a person presses it', async () => {
    const h = makeWorkspace(rememberedStore([{ tabId: 't1', name: 'claude', serverSessionId: 's1', command: ['claude'] }]));
    const lost = session('s1', { state: 'recoverable', command: ['claude'], reason: 'lost with the machine' });
    await connectAndList(h, [lost]);
    expect(h.daemon.sent('attach_session')).toEqual([]);
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({
      phase: 'failed',
      offer: { kind: 'recoverable', button: 'Restart: continue', action: 'revive', secondary: { button: 'Restart: new', action: 'revive_fresh' } },
    });
    expect(h.workspace.snapshot.tabs[0].offer?.message).toContain('lost with the machine');
    h.workspace.activate('t1');
    expect(h.daemon.sent('attach_session'), 'showing the tab it already shows is no request').toEqual([]);
    h.workspace.revive('t1', false);
    expect(h.daemon.sent('attach_session').map((a) => a.session_id)).toEqual(['s1']);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
  });

  it('Restart: new asks the daemon for a fresh revive, then attaches; a missing conversation is asked about, never started fresh', async () => {
    const h = makeWorkspace(rememberedStore([{ tabId: 't1', name: 'claude', serverSessionId: 's1', command: ['claude'] }]));
    await connectAndList(h, [session('s1', { state: 'recoverable', command: ['claude'] })]);
    h.workspace.revive('t1', false);
    const attach = h.daemon.sent('attach_session').pop()!;
    h.daemon.reply(attach, { type: 'command_error', command: 'attach_session', code: 'agent_conversation_missing',
      message: 'its conversation id is not known', retryable: false });
    await flush();
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ phase: 'failed', offer: { kind: 'recoverable' } });
    expect(h.workspace.snapshot.tabs[0].offer?.message).toContain('its conversation id is not known');
    expect(h.daemon.sent('revive_session')).toEqual([]);
    h.workspace.revive('t1', true);
    const revive = h.daemon.sent('revive_session').pop()!;
    expect(revive).toMatchObject({ session_id: 's1', fresh: true });
    h.daemon.reply(revive, { type: 'revive_result', session: session('s1'), warnings: [] });
    await flush();
    expect(h.daemon.sent('attach_session')).toHaveLength(2);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
  });

  it('a terminal asked for while offline is started once the connection is back, once', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.network.last().drop();
    h.workspace.newTerminal({ command: ['htop'] });
    expect(h.workspace.snapshot.tabs[1]).toMatchObject({ name: 'htop', phase: 'opening', notice: 'Starts as soon as the daemon is reachable.' });
    h.clock.advance(100);
    h.network.last().open();
    h.daemon.hello([session('s1')]);
    await flush();
    h.daemon.reply(h.daemon.sent('list_sessions').pop()!, { type: 'session_list', sessions: [session('s1')] });
    await flush();
    expect(h.daemon.sent('spawn_session')).toEqual([expect.objectContaining({ command: ['htop'] })]);
    await answerSpawn(h, 'n1', { command: ['htop'], label: 'htop' });
    await reconnect(h, [session('s1'), session('n1', { command: ['htop'], label: 'htop' })]);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
  });

  it('a start whose answer was lost with the connection is not sent again: the tab says it may be running', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.workspace.newTerminal(deploy);
    expect(h.daemon.sent('spawn_session')).toHaveLength(1);
    const spawned = session('n1', deploy);
    await reconnect(h, [session('s1'), spawned]);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
    expect(h.workspace.snapshot.tabs[1]).toMatchObject({ sessionId: null, phase: 'failed', offer: { kind: 'start_unconfirmed' } });
    expect(h.workspace.snapshot.unclaimed.map((s) => s.id)).toEqual(['n1']);
  });

  it('a tab closed while its start is in flight removes the session that start made', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    const tabId = h.workspace.newTerminal();
    h.workspace.close(tabId);
    h.daemon.reply(h.daemon.sent('spawn_session')[0]!, { type: 'spawn_result', session: session('n1') });
    await flush();
    expect(h.daemon.sent('remove_session')).toEqual([expect.objectContaining({ session_id: 'n1' })]);
    expect(h.daemon.sent('attach_session').map((a) => a.session_id)).toEqual(['s1']);
  });

  it('a failed start is offered again to a person, not retried on its own', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.workspace.newTerminal({ command: ['nope'] });
    h.daemon.reply(h.daemon.sent('spawn_session')[0]!, { type: 'command_error', command: 'spawn_session', code: 'spawn_failed', message: 'nope: not found', retryable: false });
    await flush();
    expect(h.workspace.snapshot.tabs[1]).toMatchObject({ phase: 'failed', offer: { kind: 'start_failed', message: 'Could not start the program: nope: not found' } });
    await reconnect(h, [session('s1')]);
    expect(h.daemon.sent('spawn_session')).toEqual([]);
    expect(h.workspace.snapshot.tabs[1]).toMatchObject({ phase: 'failed', offer: { kind: 'start_failed' } });
  });
});
