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
