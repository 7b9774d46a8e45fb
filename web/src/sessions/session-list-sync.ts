// The session-list sync machine (the "agent directory" mirror of the reference):
// idle -> initial_loading -> ready <-> revalidating; failures before the first success block
// (error_before_first_success), failures after it do not (error_after_ready keeps the list).
// Each load carries an id; a completion for a load that has been superseded is ignored.
import type { SessionInfo } from '../protocol/messages';

export type SyncStatus =
  | 'idle'
  | 'initial_loading'
  | 'ready'
  | 'revalidating'
  | 'error_before_first_success'
  | 'error_after_ready';

export interface SyncState {
  status: SyncStatus;
  sessions: SessionInfo[];
  error: string | null;
  /** Id of the load in flight (or of the last one). */
  loadId: number;
  everLoaded: boolean;
}

export type SyncEvent =
  | { type: 'LOAD' }
  | { type: 'LOADED'; loadId: number; sessions: SessionInfo[] }
  | { type: 'FAILED'; loadId: number; error: string }
  | { type: 'PUSHED'; sessions: SessionInfo[] }
  /** One session as an attach_result described it (fresher than the list: its viewer count includes us). */
  | { type: 'SEEN'; session: SessionInfo }
  /** A session_state event: one session's activity changed. */
  | { type: 'ACTIVITY'; sessionId: string; activity: string; waitingLine?: string | null }
  | { type: 'RESET' };

export const INITIAL_SYNC_STATE: SyncState = { status: 'idle', sessions: [], error: null, loadId: 0, everLoaded: false };

export function syncTransition(state: SyncState, event: SyncEvent): SyncState {
  switch (event.type) {
    case 'LOAD':
      return {
        ...state,
        loadId: state.loadId + 1,
        status: state.everLoaded ? 'revalidating' : 'initial_loading',
      };
    case 'LOADED':
      if (event.loadId !== state.loadId || !isLoading(state)) return state;
      return { ...state, status: 'ready', sessions: event.sessions, error: null, everLoaded: true };
    case 'FAILED':
      if (event.loadId !== state.loadId || !isLoading(state)) return state;
      return {
        ...state,
        status: state.everLoaded ? 'error_after_ready' : 'error_before_first_success',
        error: event.error,
      };
    case 'PUSHED':
      // sessions_changed is authoritative whenever it arrives; it counts as a first success.
      if (state.status === 'idle' || state.status === 'initial_loading' || state.status === 'error_before_first_success') {
        return { ...state, status: 'ready', sessions: event.sessions, error: null, everLoaded: true, loadId: state.loadId + 1 };
      }
      return { ...state, sessions: event.sessions };
    case 'SEEN': {
      const i = state.sessions.findIndex((s) => s.id === event.session.id);
      if (i < 0) return state; // not listed (yet, or any more): the lists decide what exists
      return { ...state, sessions: state.sessions.map((s, j) => (j === i ? event.session : s)) };
    }
    case 'ACTIVITY': {
      const i = state.sessions.findIndex((s) => s.id === event.sessionId);
      const waitingLine = event.waitingLine ?? null;
      if (i < 0 || (state.sessions[i]!.activity === event.activity && (state.sessions[i]!.waiting_line ?? null) === waitingLine)) return state;
      return { ...state, sessions: state.sessions.map((s, j) => (j === i ? { ...s, activity: event.activity, waiting_line: waitingLine } : s)) };
    }
    case 'RESET':
      return { ...INITIAL_SYNC_STATE, loadId: state.loadId + 1 };
  }
}

export function isLoading(state: SyncState): boolean {
  return state.status === 'initial_loading' || state.status === 'revalidating';
}

/** What the sidebar shows: a blocking spinner only before the first success, else a toast. */
export function syncPresentation(state: SyncState): { blockingSpinner: boolean; toast: string | null; error: string | null } {
  switch (state.status) {
    case 'initial_loading':
      return { blockingSpinner: true, toast: null, error: null };
    case 'revalidating':
      return { blockingSpinner: false, toast: 'Refreshing sessions…', error: null };
    case 'error_before_first_success':
      return { blockingSpinner: false, toast: null, error: state.error };
    case 'error_after_ready':
      return { blockingSpinner: false, toast: `Could not refresh sessions: ${state.error}`, error: null };
    default:
      return { blockingSpinner: false, toast: null, error: null };
  }
}
