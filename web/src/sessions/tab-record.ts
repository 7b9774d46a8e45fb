// What this browser tab remembers about each terminal tab, kept in sessionStorage so a reload
// finds the same tabs: order, names, which session each shows and the last offset it rendered.

export interface TabRecord {
  tabId: string;
  name: string;
  /** The daemon session the tab shows; null before its first spawn succeeded. */
  serverSessionId: string | null;
  /** The daemon that session belongs to; offsets mean nothing on another daemon. */
  daemonInstanceId: string | null;
  /** End offset of the last output xterm finished rendering; -1 when nothing was rendered. */
  renderedOffset: number;
  /** How to start the tab's program again when its session is gone. */
  command: string[] | null;
  cwd: string | null;
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
  const tabs = Array.isArray(raw.tabs) ? raw.tabs.flatMap((t) => (isTabRecord(t) ? [t] : [])) : [];
  const activeTabId = typeof raw.activeTabId === 'string' && tabs.some((t) => t.tabId === raw.activeTabId) ? raw.activeTabId : tabs[0]?.tabId ?? null;
  return { version: 1, tabs, activeTabId };
}

function isTabRecord(value: unknown): value is TabRecord {
  if (typeof value !== 'object' || value === null) return false;
  const t = value as Record<string, unknown>;
  const stringOrNull = (v: unknown) => v === null || typeof v === 'string';
  const argv = (v: unknown) => v === null || (Array.isArray(v) && v.every((a) => typeof a === 'string'));
  return typeof t.tabId === 'string' && typeof t.name === 'string' && stringOrNull(t.serverSessionId)
    && stringOrNull(t.daemonInstanceId) && typeof t.renderedOffset === 'number' && Number.isFinite(t.renderedOffset)
    && argv(t.command) && stringOrNull(t.cwd);
}
