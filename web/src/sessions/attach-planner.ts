// The attach planner: given the tabs this browser tab remembers and the daemon's session list,
// decide which tabs reattach (and from which offset), which need a fresh session (and why), and
// which daemon sessions no tab holds.
import type { SessionInfo } from '../protocol/messages';
import type { TabRecord } from './tab-record';

export type RespawnReason =
  | 'never_started' // the tab has no session yet (its spawn never completed)
  | 'gone' // the daemon does not know the session any more
  | 'exited' // the session's program ended
  | 'other_daemon'; // the tab's session belongs to a different daemon

export interface ReattachStep {
  tabId: string;
  sessionId: string;
  /** Offset to resume from; undefined = "I have nothing" (the daemon sends snapshot/ring). */
  since: number | undefined;
  session: SessionInfo;
}

export interface RespawnStep {
  tabId: string;
  reason: RespawnReason;
  previousSessionId: string | null;
  /** The exited session, when there is one, to say how it ended. */
  previous: SessionInfo | null;
}

export interface AttachPlan {
  reattach: ReattachStep[];
  respawn: RespawnStep[];
  /** Server sessions no tab holds, oldest first. */
  unclaimed: SessionInfo[];
}

export interface PlanInput {
  tabs: TabRecord[];
  sessions: SessionInfo[];
  daemonInstanceId: string;
  /** Whether each tab's terminal still holds the output up to its renderedOffset. */
  hasRenderedContent(tabId: string): boolean;
}

export function planAttach(input: PlanInput): AttachPlan {
  const byId = new Map(input.sessions.map((s) => [s.id, s]));
  const claimed = new Set<string>();
  const reattach: ReattachStep[] = [];
  const respawn: RespawnStep[] = [];
  for (const tab of input.tabs) {
    const id = tab.serverSessionId;
    if (id === null) {
      respawn.push({ tabId: tab.tabId, reason: 'never_started', previousSessionId: null, previous: null });
      continue;
    }
    if (tab.daemonInstanceId !== null && tab.daemonInstanceId !== input.daemonInstanceId) {
      respawn.push({ tabId: tab.tabId, reason: 'other_daemon', previousSessionId: id, previous: null });
      continue;
    }
    const session = byId.get(id);
    if (!session || claimed.has(id)) {
      respawn.push({ tabId: tab.tabId, reason: 'gone', previousSessionId: id, previous: null });
      continue;
    }
    claimed.add(id);
    if (session.state === 'exited') {
      respawn.push({ tabId: tab.tabId, reason: 'exited', previousSessionId: id, previous: session });
      continue;
    }
    const canResume = tab.renderedOffset >= 0 && tab.renderedOffset <= session.end_offset && input.hasRenderedContent(tab.tabId);
    reattach.push({ tabId: tab.tabId, sessionId: id, since: canResume ? tab.renderedOffset : undefined, session });
  }
  const unclaimed = input.sessions
    .filter((s) => !claimed.has(s.id))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  return { reattach, respawn, unclaimed };
}

/** A line for the tab saying why it shows a new session. */
export function respawnNotice(step: RespawnStep): string | null {
  switch (step.reason) {
    case 'never_started':
      return null;
    case 'gone':
      return 'The previous session is gone (the daemon no longer has it); this is a new one.';
    case 'other_daemon':
      return 'The previous session belonged to another daemon; this is a new one.';
    case 'exited': {
      const p = step.previous;
      const how = p?.exit_signal ? `was killed by SIG${p.exit_signal}` : `exited with code ${p?.exit_code ?? '?'}`;
      return `The previous session ${how}; this is a new one.`;
    }
  }
}
