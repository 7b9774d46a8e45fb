// Which sessions have just started waiting for a person (issue 14), for the opt-in browser
// notification. Pure: it compares each render's session rows with what it saw before. The first
// look (a page load, a first list) only takes note: a page never notifies about what was already
// waiting when it opened. A row without a shown activity (not connected, not running) changes
// nothing, so a reconnect does not notify again about a session that was waiting all along.
import type { SessionRow, ShownActivity } from './session-rows';

export interface WaitingAlert {
  sessionId: string;
  name: string;
  activity: 'waiting_input' | 'pending_approval';
  /** "waiting for you", "needs approval". */
  text: string;
}

const WAITING = new Set<ShownActivity>(['waiting_input', 'pending_approval']);

export class WaitingAlerts {
  private readonly seen = new Map<string, ShownActivity>();
  private primed = false;

  /** The sessions that moved into a waiting state since the last call. */
  update(rows: SessionRow[]): WaitingAlert[] {
    const alerts: WaitingAlert[] = [];
    for (const row of rows) {
      if (!row.activity || !row.activityText) continue;
      const before = this.seen.get(row.session.id);
      this.seen.set(row.session.id, row.activity);
      if (this.primed && WAITING.has(row.activity) && before !== row.activity) {
        alerts.push({ sessionId: row.session.id, name: row.name, activity: row.activity as WaitingAlert['activity'], text: row.activityText });
      }
    }
    const listed = new Set(rows.map((r) => r.session.id));
    for (const id of [...this.seen.keys()]) if (!listed.has(id)) this.seen.delete(id);
    if (rows.length > 0) this.primed = true;
    return alerts;
  }
}
