// The session list of every host as the sidebar shows it: first the sessions that need a person,
// from every host (pending approval, then waiting for input, each group in list order), then one
// group per host with the rest. Every session appears once. The count is what the page's title
// and icon show. Pure: computed from the cockpit's snapshot.
import { byAttention, needsYou, type SessionRow } from '../sessions/session-rows';
import type { CockpitSnapshot, HostKind } from './cockpit';

export interface HostedRow extends SessionRow {
  hostKey: string;
  hostName: string;
}

export interface HostGroup {
  key: string;
  name: string;
  kind: HostKind;
  rows: HostedRow[];
}

export interface AttentionView {
  /** Sessions that need a person, from every host, in attention order. */
  needsYou: HostedRow[];
  /** Each host's other sessions, in the host's list order. */
  groups: HostGroup[];
  /** How many sessions need a person (the title's and the icon's count). */
  count: number;
}

export function attentionView(s: CockpitSnapshot): AttentionView {
  const hosted = s.hosts.map((h) => ({
    key: h.key, name: h.name, kind: h.kind,
    rows: h.snapshot.sessionRows.map((row) => ({ ...row, hostKey: h.key, hostName: h.name })),
  }));
  const waiting = byAttention(hosted.flatMap((h) => h.rows.filter((r) => needsYou(r.activity))));
  const groups = hosted.map((h) => ({ ...h, rows: h.rows.filter((r) => !needsYou(r.activity)) }));
  return { needsYou: waiting, groups, count: waiting.length };
}

/** The page's title: "(2) limpet" while two sessions need a person, else "limpet". */
export function pageTitle(count: number): string {
  return count > 0 ? `(${count}) limpet` : 'limpet';
}
