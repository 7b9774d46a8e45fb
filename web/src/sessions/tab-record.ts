// What this browser tab remembers about each terminal tab, kept in sessionStorage so a reload
// finds the same tabs: order, names, which session each shows and the last offset it rendered.

/**
 * Where a tab without a session stands: `requested` (a person asked for one; not sent yet, e.g.
 * while offline), `sent` (spawn_session went out, no answer yet: if the connection drops now, the
 * program may or may not be running), null (nothing pending: bound, or the start failed).
 */
export type StartRequest = 'requested' | 'sent' | null;

export interface TabRecord {
  tabId: string;
  /** The name shown (see tab-name.ts); kept so a reload shows it before the daemon answers. */
  name: string;
  /** The daemon session the tab shows; null before its first spawn succeeded. */
  serverSessionId: string | null;
  /** The daemon that session belongs to; offsets mean nothing on another daemon. */
  daemonInstanceId: string | null;
  /** End offset of the last output xterm finished rendering; -1 when nothing was rendered. */
  renderedOffset: number;
  /** How to start the tab's program again when a person asks (Restart, New). */
  command: string[] | null;
  cwd: string | null;
  /** A start a person asked for that has no session yet. */
  start: StartRequest;
  /**
   * Whether the session has appeared in a session list of its daemon. Only then does its absence
   * from a later list mean it was removed (a list may be older than a spawn that just happened).
   */
  listed: boolean;
  /** The title the program set (OSC 0/2), if any. */
  title: string | null;
  /** Whether a person named this tab (rename, or a name given at start): that name wins. */
  userNamed: boolean;
}

export interface PersistedWorkspace {
  version: 1;
  tabs: TabRecord[];
  activeTabId: string | null;
}

export function emptyWorkspace(): PersistedWorkspace {
  return { version: 1, tabs: [], activeTabId: null };
}

/** Reads a persisted workspace defensively: anything malformed is dropped, never thrown. */
export function parseWorkspace(text: string | null): PersistedWorkspace | null {
  if (!text) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || (value as { version?: unknown }).version !== 1) return null;
  const raw = value as { tabs?: unknown; activeTabId?: unknown };
  const tabs = Array.isArray(raw.tabs) ? raw.tabs.flatMap((t) => parseTabRecord(t) ?? []) : [];
  const activeTabId = typeof raw.activeTabId === 'string' && tabs.some((t) => t.tabId === raw.activeTabId) ? raw.activeTabId : tabs[0]?.tabId ?? null;
  return { version: 1, tabs, activeTabId };
}

/**
 * One remembered tab, or null when malformed. Fields added after the first release are optional:
 * a record without them was saved by an older page. Its pending start is taken as `sent` (it may
 * have reached the daemon: never sent twice) and its session as listed (it came from a list or
 * was attached).
 */
function parseTabRecord(value: unknown): TabRecord | null {
  if (typeof value !== 'object' || value === null) return null;
  const t = value as Record<string, unknown>;
  const stringOrNull = (v: unknown) => v === null || typeof v === 'string';
  const argv = (v: unknown) => v === null || (Array.isArray(v) && v.every((a) => typeof a === 'string'));
  const valid = typeof t.tabId === 'string' && typeof t.name === 'string' && stringOrNull(t.serverSessionId)
    && stringOrNull(t.daemonInstanceId) && typeof t.renderedOffset === 'number' && Number.isFinite(t.renderedOffset)
    && argv(t.command) && stringOrNull(t.cwd);
  if (!valid) return null;
  const serverSessionId = t.serverSessionId as string | null;
  const start: StartRequest = t.start === 'requested' || t.start === 'sent' ? t.start : t.start === null ? null : 'sent';
  return {
    tabId: t.tabId as string, name: t.name as string, serverSessionId, daemonInstanceId: t.daemonInstanceId as string | null,
    renderedOffset: t.renderedOffset as number, command: t.command as string[] | null, cwd: t.cwd as string | null,
    start: serverSessionId === null ? start : null,
    listed: typeof t.listed === 'boolean' ? t.listed : true,
    title: typeof t.title === 'string' ? t.title : null,
    userNamed: t.userNamed === true,
  };
}
