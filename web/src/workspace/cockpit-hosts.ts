// The other hosts the page's own daemon knows (its user's hosts.json), as `GET /api/hosts` gives
// them to a page holding the daemon's token: a name and how to reach each one, directly (a daemon's
// URL and token) or through a relay (the pairing's address and secret). Checked here once, so the
// rest of the page never sees a malformed entry. The credentials live in this page's memory only.
import type { KeyValueStore } from './terminal-port';

export type CockpitHostEntry =
  | { name: string; kind: 'direct'; url: string; token: string }
  | { name: string; kind: 'relay'; url: string; secret: string };

/** The entries of a `/api/hosts` answer that are well formed; anything else is left out (and said in the console). */
export function parseCockpitHosts(value: unknown): CockpitHostEntry[] {
  const list = (value as { hosts?: unknown } | null)?.hosts;
  if (!Array.isArray(list)) return [];
  const out: CockpitHostEntry[] = [];
  const names = new Set<string>();
  for (const item of list) {
    if (typeof item !== 'object' || item === null) continue;
    const e = item as Record<string, unknown>;
    const name = typeof e.name === 'string' ? e.name : '';
    const url = typeof e.url === 'string' && /^https?:\/\//.test(e.url) ? e.url : '';
    if (!name || !url || names.has(name)) {
      console.warn(`limpet: host entry left out: ${JSON.stringify(name)}`);
      continue;
    }
    if (e.kind === 'direct' && typeof e.token === 'string' && e.token) out.push({ name, kind: 'direct', url, token: e.token });
    else if (e.kind === 'relay' && typeof e.secret === 'string' && /^[A-Za-z0-9_-]{43}$/.test(e.secret)) {
      out.push({ name, kind: 'relay', url, secret: e.secret });
    } else {
      console.warn(`limpet: host entry ${name} left out: no usable credential`);
      continue;
    }
    names.add(name);
  }
  return out;
}

export async function fetchCockpitHosts(fetchImpl: typeof fetch, token: string): Promise<CockpitHostEntry[]> {
  const response = await fetchImpl('/api/hosts', { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
  if (!response.ok) throw new Error(`GET /api/hosts: ${response.status}`);
  return parseCockpitHosts(await response.json());
}

/** A store whose keys all start with `prefix`: each host keeps its tabs apart in one browser tab's storage. */
export function prefixedStore(store: KeyValueStore, prefix: string): KeyValueStore {
  return {
    getItem: (key) => store.getItem(prefix + key),
    setItem: (key, value) => store.setItem(prefix + key, value),
    removeItem: (key) => store.removeItem(prefix + key),
  };
}
