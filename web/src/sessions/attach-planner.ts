// The attach planner: given the tabs this browser tab remembers and the daemon's session list,
// decide what each tab does: reattach (and from which offset), show how its program ended, wait
// for a person to show it, close because its session was removed, or say that it has none.
//
// The rule it enforces: a plan never starts a session on its own. The only step that spawns is
// `start`, for a tab whose start a person asked for (+ Terminal, Restart, New) and that was never
// sent to the daemon. A finished program is shown finished, never run again; a session removed
// elsewhere closes its tab; a session the daemon does not know says so and waits for a person.
// A `recoverable` session (its program was lost with a daemon or machine) is attached when a
// person shows its tab: the daemon decides whether to revive it; the page never spawns for it.
// A page opened with no tab starts nothing either: it opens the running sessions no tab holds
// (if any) and otherwise shows "No terminal open" until a person asks for one.
import type { SessionInfo } from '../protocol/messages';
import type { TabRecord } from './tab-record';

export type TabStep =
  /** Running or starting (or a state this page does not know): reattach from `since`. */
  | { kind: 'attach'; tabId: string; sessionId: string; since: number | undefined; session: SessionInfo }
  /** The program exited: attach to show its output and exit status; nothing is started. */
  | { kind: 'show_exit'; tabId: string; sessionId: string; since: number | undefined; session: SessionInfo }
  /** Recoverable: attach once a person shows the tab; the daemon decides (revive or refuse). */
  | { kind: 'attach_when_shown'; tabId: string; sessionId: string; session: SessionInfo }
  /** Not in the list, never seen in one (spawned moments ago): attach, the daemon's answer decides. */
  | { kind: 'confirm'; tabId: string; sessionId: string }
  /** The daemon refused to attach a session it lists (recoverable and not revived, or a stale list). */
  | { kind: 'refused'; tabId: string; sessionId: string; session: SessionInfo }
  /** The session was removed (elsewhere: another page, the CLI) or another tab holds it: close the tab. */
  | { kind: 'close'; tabId: string; sessionId: string; reason: 'removed' | 'duplicate' }
  /** The session belonged to another daemon: "this session no longer exists", a New button. */
  | { kind: 'no_longer_exists'; tabId: string; sessionId: string }
  /** A person asked for a session (while offline) and the request was never sent: send it now. */
  | { kind: 'start'; tabId: string }
  /** A start was sent but its answer was lost with the connection: it may be running; ask a person. */
  | { kind: 'start_unconfirmed'; tabId: string }
  /** No session and no start pending (a start failed): wait for a person. */
  | { kind: 'idle'; tabId: string };

export interface AttachPlan {
  steps: TabStep[];
  /** Server sessions no tab holds, oldest first. */
  unclaimed: SessionInfo[];
  /**
   * Sessions a fresh page opens as tabs on its first plan: the running ones no tab holds. They
   * are attached, never started; a daemon that runs nothing leaves the page empty.
   */
  open: SessionInfo[];
}

export interface PlanInput {
  tabs: TabRecord[];
  sessions: SessionInfo[];
  daemonInstanceId: string;
  /** Whether each tab's terminal still holds the output up to its renderedOffset. */
  hasRenderedContent(tabId: string): boolean;
  /** Sessions whose attach the daemon answered with `session_not_found` on this connection. */
  refused?: ReadonlySet<string>;
  /** True for the first plan of a page that remembered no tabs (a new browser tab, not a reload). */
  firstPlanOfFreshPage?: boolean;
}

export function planAttach(input: PlanInput): AttachPlan {
  const byId = new Map(input.sessions.map((s) => [s.id, s]));
  const claimed = new Set<string>();
  const steps = input.tabs.map((tab) => {
    const step = planTab(tab, byId, claimed, input);
    if (tab.serverSessionId !== null && step.kind !== 'close' && step.kind !== 'no_longer_exists') claimed.add(tab.serverSessionId);
    return step;
  });
  const unclaimed = input.sessions
    .filter((s) => !claimed.has(s.id))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const fresh = input.firstPlanOfFreshPage === true;
  const open = fresh ? unclaimed.filter((s) => s.state === 'running' || s.state === 'starting') : [];
  return { steps, unclaimed, open };
}

function planTab(tab: TabRecord, byId: Map<string, SessionInfo>, claimed: Set<string>, input: PlanInput): TabStep {
  const tabId = tab.tabId;
  const sessionId = tab.serverSessionId;
  if (sessionId === null) {
    if (tab.start === 'requested') return { kind: 'start', tabId };
    if (tab.start === 'sent') return { kind: 'start_unconfirmed', tabId };
    return { kind: 'idle', tabId };
  }
  if (tab.daemonInstanceId !== null && tab.daemonInstanceId !== input.daemonInstanceId) {
    return { kind: 'no_longer_exists', tabId, sessionId };
  }
  if (claimed.has(sessionId)) return { kind: 'close', tabId, sessionId, reason: 'duplicate' };
  const session = byId.get(sessionId);
  const refused = input.refused?.has(sessionId) ?? false;
  if (!session) {
    return tab.listed || refused ? { kind: 'close', tabId, sessionId, reason: 'removed' } : { kind: 'confirm', tabId, sessionId };
  }
  if (refused) return { kind: 'refused', tabId, sessionId, session };
  if (session.state === 'recoverable') return { kind: 'attach_when_shown', tabId, sessionId, session };
  const canResume = tab.renderedOffset >= 0 && tab.renderedOffset <= session.end_offset && input.hasRenderedContent(tabId);
  const since = canResume ? tab.renderedOffset : undefined;
  if (session.state === 'exited') return { kind: 'show_exit', tabId, sessionId, since, session };
  return { kind: 'attach', tabId, sessionId, since, session };
}
