// Where the workspace keeps things: the client key in localStorage (one per browser profile),
// the open tabs and each tab's saved screen in sessionStorage (one per browser tab).
import { parseWorkspace, type PersistedWorkspace } from '../sessions/tab-record';
import type { KeyValueStore } from './terminal-port';

export const CLIENT_KEY = 'limpet.clientSessionKey';
export const WORKSPACE_KEY = 'limpet.workspace';
const SCREEN_PREFIX = 'limpet.screen.';
const DEFAULT_PROGRAM_KEY = 'limpet.defaultProgram';

export interface SavedScreen {
  offset: number;
  daemonInstanceId: string | null;
  data: string;
  /** The size the screen was drawn at (absent in screens saved before it was kept). */
  cols?: number;
  rows?: number;
}

/** Returns the profile's client key, creating one (URL-safe, 32 chars) the first time. */
export function clientSessionKey(local: KeyValueStore, randomBytes: (n: number) => Uint8Array): string {
  const existing = local.getItem(CLIENT_KEY);
  if (existing && /^[A-Za-z0-9_-]{8,128}$/.test(existing)) return existing;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const key = Array.from(randomBytes(32), (b) => alphabet[b & 63]).join('');
  local.setItem(CLIENT_KEY, key);
  return key;
}

export function loadWorkspace(session: KeyValueStore): PersistedWorkspace | null {
  return parseWorkspace(session.getItem(WORKSPACE_KEY));
}

export function saveWorkspace(session: KeyValueStore, workspace: PersistedWorkspace): void {
  trySet(session, WORKSPACE_KEY, JSON.stringify(workspace));
}

export function loadScreen(session: KeyValueStore, tabId: string): SavedScreen | null {
  const text = session.getItem(SCREEN_PREFIX + tabId);
  if (!text) return null;
  try {
    const value = JSON.parse(text) as SavedScreen;
    return typeof value.offset === 'number' && typeof value.data === 'string' ? value : null;
  } catch {
    return null;
  }
}

export function saveScreen(session: KeyValueStore, tabId: string, screen: SavedScreen): boolean {
  return trySet(session, SCREEN_PREFIX + tabId, JSON.stringify(screen));
}

export function forgetScreen(session: KeyValueStore, tabId: string): void {
  session.removeItem(SCREEN_PREFIX + tabId);
}

/**
 * The name of the program the daemon starts when asked for no command in particular (the user's
 * shell), learnt from the last such start: a tab opened while offline is named after it at once.
 */
export function loadDefaultProgram(session: KeyValueStore): string | null {
  return session.getItem(DEFAULT_PROGRAM_KEY);
}

export function saveDefaultProgram(session: KeyValueStore, name: string): void {
  trySet(session, DEFAULT_PROGRAM_KEY, name);
}

/** Storage can be full or disabled; losing a saved screen only costs a full replay. */
function trySet(store: KeyValueStore, key: string, value: string): boolean {
  try {
    store.setItem(key, value);
    return true;
  } catch {
    store.removeItem(key);
    return false;
  }
}
