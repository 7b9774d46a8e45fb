import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../src/protocol/messages';
import { INITIAL_SYNC_STATE, syncPresentation, syncTransition, type SyncEvent, type SyncState } from '../src/sessions/session-list-sync';

const session = (id: string): SessionInfo => ({
  id, label: id, command: ['bash'], cwd: '/', state: 'running', pid: 1, exit_code: null, exit_signal: null,
  created_at: '2026-01-01T00:00:00Z', cols: 80, rows: 24, end_offset: 0, attached: 0,
});
const run = (state: SyncState, ...events: SyncEvent[]) => events.reduce(syncTransition, state);

describe('session list sync machine', () => {
  it('idle -> initial_loading -> ready', () => {
    const loading = run(INITIAL_SYNC_STATE, { type: 'LOAD' });
    expect(loading.status).toBe('initial_loading');
    const ready = run(loading, { type: 'LOADED', loadId: loading.loadId, sessions: [session('a')] });
    expect(ready).toMatchObject({ status: 'ready', everLoaded: true, error: null });
    expect(ready.sessions.map((s) => s.id)).toEqual(['a']);
  });

  it('initial_loading -> error_before_first_success -> initial_loading on retry', () => {
    const loading = run(INITIAL_SYNC_STATE, { type: 'LOAD' });
    const failed = run(loading, { type: 'FAILED', loadId: loading.loadId, error: 'disconnected' });
    expect(failed).toMatchObject({ status: 'error_before_first_success', error: 'disconnected' });
    expect(run(failed, { type: 'LOAD' }).status).toBe('initial_loading');
  });

  it('ready -> revalidating -> ready, keeping the list visible meanwhile', () => {
    const ready = run(INITIAL_SYNC_STATE, { type: 'LOAD' }, { type: 'LOADED', loadId: 1, sessions: [session('a')] });
    const revalidating = run(ready, { type: 'LOAD' });
    expect(revalidating.status).toBe('revalidating');
    expect(revalidating.sessions).toHaveLength(1);
    const again = run(revalidating, { type: 'LOADED', loadId: revalidating.loadId, sessions: [session('a'), session('b')] });
    expect(again.status).toBe('ready');
    expect(again.sessions).toHaveLength(2);
  });

  it('revalidating -> error_after_ready keeps the list and is non-blocking', () => {
    const revalidating = run(INITIAL_SYNC_STATE, { type: 'LOAD' }, { type: 'LOADED', loadId: 1, sessions: [session('a')] }, { type: 'LOAD' });
    const failed = run(revalidating, { type: 'FAILED', loadId: revalidating.loadId, error: 'timeout' });
    expect(failed).toMatchObject({ status: 'error_after_ready', error: 'timeout' });
    expect(failed.sessions).toHaveLength(1);
    expect(syncPresentation(failed)).toEqual({ blockingSpinner: false, toast: 'Could not refresh sessions: timeout', error: null });
    expect(run(failed, { type: 'LOAD' }).status).toBe('revalidating');
  });

  it('ignores stale completions of superseded loads', () => {
    const first = run(INITIAL_SYNC_STATE, { type: 'LOAD' });
    const second = run(first, { type: 'LOAD' });
    expect(run(second, { type: 'LOADED', loadId: first.loadId, sessions: [session('old')] })).toBe(second);
    expect(run(second, { type: 'FAILED', loadId: first.loadId, error: 'x' })).toBe(second);
    const ready = run(second, { type: 'LOADED', loadId: second.loadId, sessions: [session('new')] });
    expect(ready.sessions[0]!.id).toBe('new');
    expect(run(ready, { type: 'LOADED', loadId: second.loadId, sessions: [] })).toBe(ready);
  });

  it('pushed lists replace the sessions; before the first load they count as success', () => {
    const loading = run(INITIAL_SYNC_STATE, { type: 'LOAD' });
    const pushed = run(loading, { type: 'PUSHED', sessions: [session('p')] });
    expect(pushed).toMatchObject({ status: 'ready', everLoaded: true });
    expect(run(pushed, { type: 'LOADED', loadId: loading.loadId, sessions: [] })).toBe(pushed);
    const revalidating = run(pushed, { type: 'LOAD' });
    expect(run(revalidating, { type: 'PUSHED', sessions: [] })).toMatchObject({ status: 'revalidating', sessions: [] });
  });

  it('reset returns to idle and orphans loads in flight', () => {
    const loading = run(INITIAL_SYNC_STATE, { type: 'LOAD' });
    const reset = run(loading, { type: 'RESET' });
    expect(reset.status).toBe('idle');
    expect(run(reset, { type: 'LOADED', loadId: loading.loadId, sessions: [session('a')] }).status).toBe('idle');
  });

  it('presents a blocking spinner only before the first success, a toast while revalidating', () => {
    const loading = run(INITIAL_SYNC_STATE, { type: 'LOAD' });
    expect(syncPresentation(loading)).toEqual({ blockingSpinner: true, toast: null, error: null });
    const revalidating = run(loading, { type: 'LOADED', loadId: 1, sessions: [] }, { type: 'LOAD' });
    expect(syncPresentation(revalidating)).toMatchObject({ blockingSpinner: false, toast: 'Refreshing sessions…' });
    const failed = run(INITIAL_SYNC_STATE, { type: 'LOAD' }, { type: 'FAILED', loadId: 1, error: 'down' });
    expect(syncPresentation(failed)).toEqual({ blockingSpinner: false, toast: null, error: 'down' });
  });
});

describe('session list sync: one session seen in an attach_result', () => {
  it('replaces that session in the list (a fresher viewer count) and never adds one the lists do not hold', () => {
    const ready = run(INITIAL_SYNC_STATE, { type: 'LOAD' }, { type: 'LOADED', loadId: 1, sessions: [session('a'), session('b')] });
    const seen = run(ready, { type: 'SEEN', session: { ...session('b'), attached: 2 } });
    expect(seen.sessions.map((s) => [s.id, s.attached])).toEqual([['a', 0], ['b', 2]]);
    expect(run(ready, { type: 'SEEN', session: session('gone') })).toBe(ready);
  });
});
