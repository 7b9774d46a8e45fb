// Which sessions have just started waiting for a person, for the opt-in browser notification.
// Pure: it compares each render's session rows with what it saw before. A host's first look (a
// page load, a first list, a host that connects later) only takes note: a page never notifies about
// what was already waiting when it saw it first. A row without a shown activity (not connected,
// not running) changes nothing, so a reconnect does not notify again about a session that was
// waiting all along. A waiting session whose line became known (the daemon reads it from the
// screen just after the activity changed) or changed is raised again, to replace its notification.
import type { SessionRow, ShownActivity } from './session-rows';

export interface WaitingAlert {
  /** The host that runs it ('local' for rows without one). */
  hostKey: string;
  sessionId: string;
  name: string;
  activity: 'waiting_input' | 'pending_approval';
  /** "waiting for you", "needs approval". */
  text: string;
  /** The line it waits on, when known. */
  waitingLine: string | null;
}

const WAITING = new Set<ShownActivity>(['waiting_input', 'pending_approval']);

type Row = SessionRow & { hostKey?: string };

export class WaitingAlerts {
  private readonly seen = new Map<string, { activity: ShownActivity; line: string | null }>();
  private readonly primed = new Set<string>();

  /** The sessions that moved into a waiting state (or whose waiting line changed) since the last call. */
  update(rows: Row[]): WaitingAlert[] {
    const alerts: WaitingAlert[] = [];
    for (const row of rows) {
      if (!row.activity || !row.activityText) continue;
      const hostKey = row.hostKey ?? 'local';
      const key = `${hostKey}/${row.session.id}`;
      const before = this.seen.get(key);
      this.seen.set(key, { activity: row.activity, line: row.waitingLine });
      const changed = before?.activity !== row.activity || (row.waitingLine !== null && before.line !== row.waitingLine);
      if (this.primed.has(hostKey) && WAITING.has(row.activity) && changed) {
        alerts.push({
          hostKey, sessionId: row.session.id, name: row.name, activity: row.activity as WaitingAlert['activity'], text: row.activityText,
          waitingLine: row.waitingLine,
        });
      }
    }
    const listed = new Set(rows.map((r) => `${r.hostKey ?? 'local'}/${r.session.id}`));
    for (const key of [...this.seen.keys()]) if (!listed.has(key)) this.seen.delete(key);
    for (const row of rows) this.primed.add(row.hostKey ?? 'local');
    return alerts;
  }
}
