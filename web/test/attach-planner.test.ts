import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../src/protocol/messages';
import { planAttach, respawnNotice } from '../src/sessions/attach-planner';
import { parseWorkspace, type TabRecord } from '../src/sessions/tab-record';

const session = (id: string, extra: Partial<SessionInfo> = {}): SessionInfo => ({
  id, label: id, command: ['bash', '-l'], cwd: '/home', state: 'running', pid: 1, exit_code: null, exit_signal: null,
  created_at: '2026-01-01T00:00:00Z', cols: 80, rows: 24, end_offset: 1000, attached: 0, ...extra,
});
const tab = (tabId: string, serverSessionId: string | null, extra: Partial<TabRecord> = {}): TabRecord => ({
  tabId, name: tabId, serverSessionId, daemonInstanceId: 'd-1', renderedOffset: 500, command: null, cwd: null, ...extra,
});
const plan = (tabs: TabRecord[], sessions: SessionInfo[], hasContent = true) =>
  planAttach({ tabs, sessions, daemonInstanceId: 'd-1', hasRenderedContent: () => hasContent });

describe('attach planner', () => {
  it('reattaches a running session from the offset the tab rendered', () => {
    const result = plan([tab('t1', 's1')], [session('s1')]);
    expect(result.reattach).toEqual([{ tabId: 't1', sessionId: 's1', since: 500, session: session('s1') }]);
    expect(result.respawn).toEqual([]);
    expect(result.unclaimed).toEqual([]);
  });

  it('asks for everything (no since) when the terminal holds nothing to resume from', () => {
    expect(plan([tab('t1', 's1')], [session('s1')], false).reattach[0]!.since).toBeUndefined();
    expect(plan([tab('t1', 's1', { renderedOffset: -1 })], [session('s1')]).reattach[0]!.since).toBeUndefined();
  });

  it('treats an offset ahead of the stream as unknown', () => {
    expect(plan([tab('t1', 's1', { renderedOffset: 5000 })], [session('s1', { end_offset: 100 })]).reattach[0]!.since).toBeUndefined();
  });

  it('reattaches starting sessions too', () => {
    expect(plan([tab('t1', 's1')], [session('s1', { state: 'starting' })]).reattach).toHaveLength(1);
  });

  it('respawns a tab whose session is gone', () => {
    const result = plan([tab('t1', 'gone1')], [session('s2')]);
    expect(result.respawn).toEqual([{ tabId: 't1', reason: 'gone', previousSessionId: 'gone1', previous: null }]);
    expect(result.unclaimed.map((s) => s.id)).toEqual(['s2']);
  });

  it('respawns a tab whose session exited and says how it ended', () => {
    const exited = session('s1', { state: 'exited', exit_code: 3 });
    const result = plan([tab('t1', 's1')], [exited]);
    expect(result.respawn).toEqual([{ tabId: 't1', reason: 'exited', previousSessionId: 's1', previous: exited }]);
    expect(respawnNotice(result.respawn[0]!)).toContain('exited with code 3');
    const killed = plan([tab('t1', 's1')], [session('s1', { state: 'exited', exit_signal: 'KILL' })]);
    expect(respawnNotice(killed.respawn[0]!)).toContain('SIGKILL');
    expect(result.unclaimed).toEqual([]);
  });

  it('respawns tabs that never got a session, without a notice', () => {
    const result = plan([tab('t1', null)], []);
    expect(result.respawn[0]).toMatchObject({ reason: 'never_started' });
    expect(respawnNotice(result.respawn[0]!)).toBeNull();
  });

  it('respawns tabs whose session belonged to another daemon even when the id matches', () => {
    const result = plan([tab('t1', 's1', { daemonInstanceId: 'd-other' })], [session('s1')]);
    expect(result.respawn[0]).toMatchObject({ reason: 'other_daemon' });
    expect(result.unclaimed.map((s) => s.id)).toEqual(['s1']);
  });

  it('lists server sessions that no tab holds, oldest first', () => {
    const result = plan([tab('t1', 's2')], [
      session('s3', { created_at: '2026-01-03T00:00:00Z' }),
      session('s2'),
      session('s1', { created_at: '2026-01-02T00:00:00Z' }),
    ]);
    expect(result.unclaimed.map((s) => s.id)).toEqual(['s1', 's3']);
  });

  it('gives a session to only one tab; a second tab claiming it respawns', () => {
    const result = plan([tab('t1', 's1'), tab('t2', 's1')], [session('s1')]);
    expect(result.reattach.map((r) => r.tabId)).toEqual(['t1']);
    expect(result.respawn).toEqual([{ tabId: 't2', reason: 'gone', previousSessionId: 's1', previous: null }]);
  });

  it('keeps tab order in the plan', () => {
    const result = plan([tab('a', 's3'), tab('b', 's1'), tab('c', 'x'), tab('d', 's2')], [session('s1'), session('s2'), session('s3')]);
    expect(result.reattach.map((r) => r.tabId)).toEqual(['a', 'b', 'd']);
    expect(result.respawn.map((r) => r.tabId)).toEqual(['c']);
  });
});

describe('persisted workspace', () => {
  it('round-trips and drops malformed tabs', () => {
    const good = tab('t1', 's1', { command: ['vim'], cwd: '/tmp' });
    const parsed = parseWorkspace(JSON.stringify({ version: 1, tabs: [good, { tabId: 3 }, null], activeTabId: 't1' }));
    expect(parsed).toEqual({ version: 1, tabs: [good], activeTabId: 't1' });
  });

  it('rejects garbage and other versions, and repairs a dangling active tab', () => {
    expect(parseWorkspace(null)).toBeNull();
    expect(parseWorkspace('{')).toBeNull();
    expect(parseWorkspace('{"version":2,"tabs":[]}')).toBeNull();
    expect(parseWorkspace(JSON.stringify({ version: 1, tabs: [tab('t1', null)], activeTabId: 'nope' }))!.activeTabId).toBe('t1');
  });
});
