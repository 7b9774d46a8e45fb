import { describe, expect, it } from 'vitest';
import { sessionRows } from '../src/sessions/session-rows';
import { connectAndList, makeWorkspace, session } from './support/workspace-harness';

describe('session rows', () => {
  const sessions = [session('a', { attached: 2 }), session('b', { state: 'exited', exit_code: 1 }), session('c', { state: 'exited', exit_signal: 'KILL' })];

  it('while connected: the daemon’s states, viewer counts, and the name of the tab that shows a session', () => {
    const rows = sessionRows(sessions, [{ tabId: 't1', sessionId: 'a', name: 'me@box: ~' }], 'connected');
    expect(rows.map((r) => [r.name, r.state, r.stateText, r.viewers, r.tabId])).toEqual([
      ['me@box: ~', 'running', 'running', 2, 't1'],
      ['b', 'exited', 'exited (1)', 0, null],
      ['c', 'exited', 'killed (SIGKILL)', 0, null],
    ]);
  });

  it('while offline or reconnecting: running shows the link state instead, viewer counts are unknown, exits stay', () => {
    for (const link of ['offline', 'reconnecting'] as const) {
      const rows = sessionRows(sessions, [], link);
      expect(rows.map((r) => [r.state, r.viewers])).toEqual([[link, null], ['exited', null], ['exited', null]]);
      expect(rows[0]!.stateText).toBe(link === 'offline' ? 'offline' : 'reconnecting…');
    }
  });
});

describe('Workspace: session rows', () => {
  it('viewer counts follow sessions_changed and attach_result; going offline shows offline, not running', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1', { attached: 0 })]);
    h.daemon.attached('s1', 0, { session: session('s1', { attached: 1 }) });
    expect(h.workspace.snapshot.sessionRows[0]).toMatchObject({ viewers: 1, state: 'running' });
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s1', { attached: 3 })] });
    expect(h.workspace.snapshot.sessionRows[0]).toMatchObject({ viewers: 3 });
    h.network.last().drop();
    expect(h.workspace.snapshot.sessionRows[0]).toMatchObject({ viewers: null, state: 'offline', stateText: 'offline' });
  });
});

describe('session rows: activity', () => {
  it('a running session shows its activity in words, and nothing when unknown, absent or a state this page does not know', () => {
    const rows = sessionRows([
      session('w', { activity: 'waiting_input' }), session('p', { activity: 'pending_approval' }), session('k', { activity: 'working' }),
      session('i', { activity: 'idle' }), session('u', { activity: 'unknown' }), session('o'), session('n', { activity: 'compacting' }),
    ], [], 'connected');
    expect(rows.map((r) => [r.session.id, r.activity, r.activityText])).toEqual([
      ['w', 'waiting_input', 'waiting for you'], ['p', 'pending_approval', 'needs approval'], ['k', 'working', 'working'],
      ['i', 'idle', 'idle'], ['u', null, null], ['o', null, null], ['n', null, null],
    ]);
  });

  it('no activity for a session that is not running, nor while not connected (it may be stale)', () => {
    expect(sessionRows([session('e', { state: 'exited', activity: 'waiting_input' })], [], 'connected')[0]!.activity).toBeNull();
    expect(sessionRows([session('r', { state: 'recoverable', activity: 'waiting_input' })], [], 'connected')[0]!.activity).toBeNull();
    for (const link of ['offline', 'reconnecting'] as const) {
      expect(sessionRows([session('w', { activity: 'waiting_input' })], [], link)[0]!.activity).toBeNull();
    }
  });
});

describe('Workspace: activity', () => {
  it('a session_state event changes the row of that session only; sessions_changed carries it too', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1'), session('s2', { activity: 'working' })]);
    expect(h.workspace.snapshot.sessionRows.map((r) => r.activity)).toEqual([null, 'working']);
    h.network.last().text({ type: 'session_state', session_id: 's1', activity: 'waiting_input' });
    expect(h.workspace.snapshot.sessionRows.map((r) => r.activityText)).toEqual(['waiting for you', 'working']);
    h.network.last().text({ type: 'session_state', session_id: 'nope', activity: 'pending_approval' });
    expect(h.workspace.snapshot.sessionRows.map((r) => r.session.id)).toEqual(['s1', 's2']);
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s1', { activity: 'pending_approval' }), session('s2')] });
    expect(h.workspace.snapshot.sessionRows.map((r) => r.activity)).toEqual(['pending_approval', null]);
  });
});
