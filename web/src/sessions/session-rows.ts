// The session list as the sidebar shows it. While the page is not connected, what it last heard
// may be stale: a running session shows "offline" (or "reconnecting…") rather than "running", and
// viewer counts are not shown. Exit statuses stay (a program that ended stays ended). A session
// open in a tab of this page carries that tab's name (the program's title, a person's name).
import type { Activity, SessionInfo } from '../protocol/messages';
import { sessionName } from './tab-name';

export type LinkState = 'connected' | 'reconnecting' | 'offline';

export type RowState = SessionInfo['state'] | 'offline' | 'reconnecting';

export interface SessionRow {
  session: SessionInfo;
  name: string;
  state: RowState;
  stateText: string;
  /** Number of viewers, or null when unknown (not connected). */
  viewers: number | null;
  /** The tab of this page that shows the session, if any. */
  tabId: string | null;
  /** What its program is doing, when known, connected and running; null otherwise. */
  activity: ShownActivity | null;
  /** The activity in words (never colour alone). */
  activityText: string | null;
  /** While it waits for a person: the line it waits on (the daemon reads it from the screen), if known. */
  waitingLine: string | null;
}

export type ShownActivity = Exclude<Activity, 'unknown'>;

const ACTIVITY_TEXT: Record<ShownActivity, string> = {
  working: 'working',
  waiting_input: 'waiting for you',
  pending_approval: 'needs approval',
  idle: 'idle',
};

/**
 * The activity a row shows: only for a running session while connected (a stale "waiting for you"
 * would mislead), and only a state this page knows (a newer daemon's reads as unknown: nothing).
 */
export function shownActivity(session: SessionInfo, link: LinkState): ShownActivity | null {
  if (link !== 'connected' || session.state !== 'running') return null;
  const a = session.activity;
  return a !== undefined && Object.prototype.hasOwnProperty.call(ACTIVITY_TEXT, a) ? (a as ShownActivity) : null;
}

/** Whether the activity asks for a person: pending approval or waiting for input. */
export function needsYou(activity: ShownActivity | null): activity is 'pending_approval' | 'waiting_input' {
  return activity === 'pending_approval' || activity === 'waiting_input';
}

/**
 * Attention order (the same in every client, `limpet ls --attention` included): approvals first,
 * then sessions waiting for input, then the rest; each group keeps the order it came in.
 */
export function attentionRank(activity: ShownActivity | null): number {
  return activity === 'pending_approval' ? 0 : activity === 'waiting_input' ? 1 : 2;
}

export function byAttention<T extends { activity: ShownActivity | null }>(rows: T[]): T[] {
  return rows.map((row, i) => ({ row, i })).sort((a, b) => attentionRank(a.row.activity) - attentionRank(b.row.activity) || a.i - b.i)
    .map(({ row }) => row);
}

export function activityText(activity: ShownActivity): string {
  return ACTIVITY_TEXT[activity];
}

export function sessionRows(sessions: SessionInfo[], tabs: { tabId: string; sessionId: string | null; name: string }[], link: LinkState): SessionRow[] {
  const byId = new Map(tabs.filter((t) => t.sessionId !== null).map((t) => [t.sessionId!, t]));
  return sessions.map((session) => {
    const tab = byId.get(session.id);
    const state = rowState(session, link);
    const activity = shownActivity(session, link);
    return {
      activity, activityText: activity ? activityText(activity) : null,
      waitingLine: activity && needsYou(activity) ? session.waiting_line ?? null : null,
      session, name: tab?.name ?? sessionName(session), state, stateText: stateText(session, state),
      viewers: link === 'connected' ? session.attached : null, tabId: tab?.tabId ?? null,
    };
  });
}

function rowState(session: SessionInfo, link: LinkState): RowState {
  if (link === 'connected' || session.state === 'exited') return session.state;
  return link;
}

function stateText(session: SessionInfo, state: RowState): string {
  switch (state) {
    case 'exited':
      return session.exit_signal ? `killed (SIG${session.exit_signal})` : `exited (${session.exit_code ?? '?'})`;
    case 'reconnecting':
      return 'reconnecting…';
    default:
      return state;
  }
}
