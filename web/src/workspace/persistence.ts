// Where the workspace keeps things: the client key in localStorage (one per browser profile),
// the open tabs in sessionStorage (one per browser tab). Screens are never kept: after a reload
// each tab gets its session's current screen from the daemon.
import { parseWorkspace, type PersistedWorkspace } from '../sessions/tab-record';
import type { KeyValueStore } from './terminal-port';

export const CLIENT_KEY = 'limpet.clientSessionKey';
export const WORKSPACE_KEY = 'limpet.workspace';
const DEFAULT_PROGRAM_KEY = 'limpet.defaultProgram';

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

/** Storage can be full or disabled: what was not saved is asked for again. */
function trySet(store: KeyValueStore, key: string, value: string): boolean {
  try {
    store.setItem(key, value);
    return true;
  } catch {
    store.removeItem(key);
    return false;
  }
}
