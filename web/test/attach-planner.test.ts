import { describe, expect, it } from 'vitest';
import type { SessionInfo, SessionState } from '../src/protocol/messages';
import { planAttach, type PlanInput, type TabStep } from '../src/sessions/attach-planner';
import { parseWorkspace, type StartRequest, type TabRecord } from '../src/sessions/tab-record';

const session = (id: string, extra: Partial<SessionInfo> = {}): SessionInfo => ({
  id, label: id, command: ['bash', '-l'], cwd: '/home', state: 'running', pid: 1, exit_code: null, exit_signal: null,
  created_at: '2026-01-01T00:00:00Z', cols: 80, rows: 24, end_offset: 1000, attached: 0, ...extra,
});
const tab = (tabId: string, serverSessionId: string | null, extra: Partial<TabRecord> = {}): TabRecord => ({
  tabId, name: tabId, serverSessionId, daemonInstanceId: serverSessionId === null ? null : 'd-1', renderedOffset: 500,
  command: null, cwd: null, start: null, listed: true, title: null, userNamed: false, ...extra,
});
const plan = (tabs: TabRecord[], sessions: SessionInfo[], hasContent = true, extra: Partial<PlanInput> = {}) =>
  planAttach({ tabs, sessions, daemonInstanceId: 'd-1', hasRenderedContent: () => hasContent, ...extra });
const kinds = (steps: TabStep[]) => steps.map((s) => `${s.tabId}:${s.kind}`);

describe('attach planner', () => {
  it('reattaches a running session from the offset the tab rendered', () => {
    const result = plan([tab('t1', 's1')], [session('s1')]);
    expect(result.steps).toEqual([{ kind: 'attach', tabId: 't1', sessionId: 's1', since: 500, session: session('s1') }]);
    expect(result.unclaimed).toEqual([]);
  });

  it('asks for everything (no since) when the terminal holds nothing to resume from', () => {
    expect(plan([tab('t1', 's1')], [session('s1')], false).steps[0]).toMatchObject({ kind: 'attach', since: undefined });
    expect(plan([tab('t1', 's1', { renderedOffset: -1 })], [session('s1')]).steps[0]).toMatchObject({ kind: 'attach', since: undefined });
  });

  it('treats an offset ahead of the stream as unknown', () => {
    expect(plan([tab('t1', 's1', { renderedOffset: 5000 })], [session('s1', { end_offset: 100 })]).steps[0]).toMatchObject({ since: undefined });
  });

  it('reattaches starting sessions too', () => {
    expect(plan([tab('t1', 's1')], [session('s1', { state: 'starting' })]).steps[0]!.kind).toBe('attach');
  });

  it('shows an exited session as exited, from its rendered offset, and never runs its command again', () => {
    const exited = session('s1', { state: 'exited', exit_code: 3 });
    const result = plan([tab('t1', 's1', { command: ['make', 'deploy'] })], [exited]);
    expect(result.steps).toEqual([{ kind: 'show_exit', tabId: 't1', sessionId: 's1', since: 500, session: exited }]);
    expect(result.unclaimed).toEqual([]);
  });

  it('closes a tab whose session was listed before and is gone now (removed elsewhere); starts nothing', () => {
    const result = plan([tab('t1', 'gone1', { command: ['make', 'deploy'] })], [session('s2')]);
    expect(result.steps).toEqual([{ kind: 'close', tabId: 't1', sessionId: 'gone1', reason: 'removed' }]);
    expect(result.unclaimed.map((s) => s.id)).toEqual(['s2']);
  });

  it('asks the daemon about a session spawned moments ago that no list has shown yet (the list may be older)', () => {
    expect(plan([tab('t1', 'new1', { listed: false })], []).steps).toEqual([{ kind: 'confirm', tabId: 't1', sessionId: 'new1' }]);
  });

  it('closes a never-listed tab once the daemon answered its attach with session_not_found', () => {
    const result = plan([tab('t1', 'new1', { listed: false })], [], true, { refused: new Set(['new1']) });
    expect(result.steps).toEqual([{ kind: 'close', tabId: 't1', sessionId: 'new1', reason: 'removed' }]);
  });

  it('says "no longer exists" for a session of another daemon, even when the id matches, and starts nothing', () => {
    const result = plan([tab('t1', 's1', { daemonInstanceId: 'd-other' })], [session('s1')]);
    expect(result.steps).toEqual([{ kind: 'no_longer_exists', tabId: 't1', sessionId: 's1' }]);
    expect(result.unclaimed.map((s) => s.id)).toEqual(['s1']);
  });

  it('attaches a recoverable session only once a person shows its tab: the daemon decides, the page never spawns', () => {
    const lost = session('s1', { state: 'recoverable' });
    expect(plan([tab('t1', 's1')], [lost]).steps).toEqual([{ kind: 'attach_when_shown', tabId: 't1', sessionId: 's1', session: lost }]);
  });

  it('offers a session the daemon refused to attach (recoverable, not revived) to a person instead of attaching again', () => {
    const lost = session('s1', { state: 'recoverable' });
    const result = plan([tab('t1', 's1')], [lost], true, { refused: new Set(['s1']) });
    expect(result.steps).toEqual([{ kind: 'refused', tabId: 't1', sessionId: 's1', session: lost }]);
  });

  it('starts a tab only when a person asked for it and the request was never sent', () => {
    expect(plan([tab('t1', null, { start: 'requested' })], []).steps).toEqual([{ kind: 'start', tabId: 't1' }]);
  });

  it('never sends a start twice: a start whose answer was lost is left to a person', () => {
    expect(plan([tab('t1', null, { start: 'sent' })], []).steps).toEqual([{ kind: 'start_unconfirmed', tabId: 't1' }]);
  });

  it('leaves a tab with no session and no request alone', () => {
    expect(plan([tab('t1', null)], []).steps).toEqual([{ kind: 'idle', tabId: 't1' }]);
  });

  it('gives a session to only one tab; a second tab claiming it is closed, not given a new session', () => {
    const result = plan([tab('t1', 's1'), tab('t2', 's1')], [session('s1')]);
    expect(kinds(result.steps)).toEqual(['t1:attach', 't2:close']);
    expect(result.steps[1]).toMatchObject({ reason: 'duplicate' });
  });

  it('lists server sessions that no tab holds, oldest first', () => {
    const result = plan([tab('t1', 's2')], [
      session('s3', { created_at: '2026-01-03T00:00:00Z' }),
      session('s2'),
      session('s1', { created_at: '2026-01-02T00:00:00Z' }),
    ]);
    expect(result.unclaimed.map((s) => s.id)).toEqual(['s1', 's3']);
  });

  it('keeps tab order in the plan', () => {
    const result = plan([tab('a', 's3'), tab('b', 's1'), tab('c', 'x'), tab('d', 's2')], [session('s1'), session('s2'), session('s3')]);
    expect(kinds(result.steps)).toEqual(['a:attach', 'b:attach', 'c:close', 'd:attach']);
  });

  it('on the first plan of a fresh page opens the running sessions no tab holds, not the exited or recoverable ones', () => {
    const sessions = [session('a'), session('b', { state: 'exited' }), session('c', { state: 'recoverable' }), session('d', { state: 'starting' })];
    const result = plan([], sessions, true, { firstPlanOfFreshPage: true });
    expect(result.open.map((s) => s.id)).toEqual(['a', 'd']);
    expect(result.steps).toEqual([]);
  });

  it('a page opened with no tab starts nothing on its own, whatever the daemon runs: it waits for a person', () => {
    // Even when the daemon runs nothing, a fresh page's first plan starts no shell.
    // The plan is compared whole, so any way of asking the page to start something fails here.
    const exited = session('b', { state: 'exited', created_at: '2026-01-02T00:00:00Z' });
    const lost = session('c', { state: 'recoverable', created_at: '2026-01-03T00:00:00Z' });
    const running = session('a');
    const lists: SessionInfo[][] = [[], [exited], [lost], [exited, lost], [lost, running, exited]];
    for (const sessions of lists) {
      for (const fresh of [true, false, undefined]) {
        const result = plan([], sessions, true, fresh === undefined ? {} : { firstPlanOfFreshPage: fresh });
        const label = JSON.stringify({ sessions: sessions.map((s) => s.state), fresh });
        expect(result, label).toStrictEqual({
          steps: [],
          unclaimed: [...sessions].sort((x, y) => x.created_at.localeCompare(y.created_at)),
          // Running sessions are attached (opened), never started; nothing else is opened.
          open: fresh === true && sessions.includes(running) ? [running] : [],
        });
      }
    }
  });

  it('no plan over any mix of tabs, sessions, daemons and refusals starts a session nobody asked for', () => {
    const states: (SessionState | 'absent')[] = ['starting', 'running', 'exited', 'recoverable', 'absent'];
    const starts: StartRequest[] = ['requested', 'sent', null];
    let plans = 0;
    for (const state of states) {
      for (const daemon of ['d-1', 'd-other']) {
        for (const listed of [true, false]) {
          for (const refused of [true, false]) {
            for (const start of starts) {
              for (const fresh of [true, false]) {
                const bound = tab('t1', 's1', { daemonInstanceId: daemon, listed, command: ['make', 'deploy'] });
                const unbound = tab('t2', null, { start, command: ['make', 'deploy'] });
                const sessions = state === 'absent' ? [] : [session('s1', { state, command: ['make', 'deploy'] })];
                const result = plan([bound, unbound], sessions, true, { refused: new Set(refused ? ['s1'] : []), firstPlanOfFreshPage: fresh });
                const spawning = result.steps.filter((s) => s.kind === 'start').map((s) => s.tabId);
                expect(spawning, JSON.stringify({ state, daemon, listed, refused, start })).toEqual(start === 'requested' ? ['t2'] : []);
                expect(Object.keys(result).sort()).toEqual(['open', 'steps', 'unclaimed']); // nothing else to carry out
                plans++;
              }
            }
          }
        }
      }
    }
    expect(plans).toBe(5 * 2 * 2 * 2 * 3 * 2);
  });
});

describe('persisted workspace', () => {
  it('round-trips and drops malformed tabs', () => {
    const good = tab('t1', 's1', { command: ['vim'], cwd: '/tmp', title: 'vim notes.txt', userNamed: true, listed: false });
    const parsed = parseWorkspace(JSON.stringify({ version: 1, tabs: [good, { tabId: 3 }, null], activeTabId: 't1' }));
    expect(parsed).toEqual({ version: 1, tabs: [good], activeTabId: 't1' });
  });

  it('reads tabs saved by an older page: a pending start counts as sent (never sent twice), a session as listed', () => {
    const old = { tabId: 't1', name: 'a', serverSessionId: null, daemonInstanceId: null, renderedOffset: -1, command: null, cwd: null };
    const bound = { ...old, tabId: 't2', serverSessionId: 's1', daemonInstanceId: 'd-1' };
    const parsed = parseWorkspace(JSON.stringify({ version: 1, tabs: [old, bound], activeTabId: 't1' }))!;
    expect(parsed.tabs[0]).toMatchObject({ start: 'sent', listed: true, title: null, userNamed: false });
    expect(parsed.tabs[1]).toMatchObject({ start: null, listed: true });
  });

  it('rejects garbage and other versions, and repairs a dangling active tab', () => {
    expect(parseWorkspace(null)).toBeNull();
    expect(parseWorkspace('{')).toBeNull();
    expect(parseWorkspace('{"version":2,"tabs":[]}')).toBeNull();
    expect(parseWorkspace(JSON.stringify({ version: 1, tabs: [tab('t1', null)], activeTabId: 'nope' }))!.activeTabId).toBe('t1');
  });
});
