// The daemon prints `http://127.0.0.1:PORT/#token=…`, and `limpet open` prints and opens it again.
// The token is taken from the fragment and removed from the address bar at once. It is kept for
// this browser tab (sessionStorage) and, unless the person opted out with "Forget token", for the
// origin (localStorage), so a bookmark of the plain address works. It is never logged or put in a URL.
import type { KeyValueStore } from '../workspace/terminal-port';

export const TOKEN_KEY = 'limpet.token';
/** 'no' once the person chose "Forget token": tokens are then kept for the browser tab only. */
export const REMEMBER_KEY = 'limpet.rememberToken';

const WELL_FORMED = /^[A-Za-z0-9_-]{16,256}$/;

export interface AddressBar {
  hash: string;
  pathname: string;
  search: string;
  replaceState(url: string): void;
}

/** Where the token is kept: `tab` lives as long as the browser tab, `origin` until forgotten. */
export interface TokenStores {
  tab: KeyValueStore;
  origin: KeyValueStore;
}

export function takeToken(address: AddressBar, stores: TokenStores): string | null {
  const params = new URLSearchParams(address.hash.replace(/^#/, ''));
  const fromFragment = params.get('token');
  if (fromFragment !== null) {
    params.delete('token');
    const rest = params.toString();
    address.replaceState(address.pathname + address.search + (rest ? `#${rest}` : ''));
    if (WELL_FORMED.test(fromFragment)) {
      stores.tab.setItem(TOKEN_KEY, fromFragment);
      if (remembersToken(stores)) stores.origin.setItem(TOKEN_KEY, fromFragment);
      return fromFragment;
    }
  }
  const kept = stores.tab.getItem(TOKEN_KEY) ?? (remembersToken(stores) ? stores.origin.getItem(TOKEN_KEY) : null);
  return kept !== null && WELL_FORMED.test(kept) ? kept : null;
}

export function remembersToken(stores: TokenStores): boolean {
  return stores.origin.getItem(REMEMBER_KEY) !== 'no';
}

/**
 * Forgets the token in this browser (tab and origin) and stops keeping new ones for the origin.
 * The page that is open keeps its connection: it holds the token in memory until it is closed.
 */
export function forgetToken(stores: TokenStores): void {
  stores.origin.removeItem(TOKEN_KEY);
  stores.tab.removeItem(TOKEN_KEY);
  stores.origin.setItem(REMEMBER_KEY, 'no');
}

/** Undoes forgetToken: keeps `token` for the tab and the origin again. */
export function rememberToken(stores: TokenStores, token: string): void {
  stores.origin.removeItem(REMEMBER_KEY);
  stores.tab.setItem(TOKEN_KEY, token);
  stores.origin.setItem(TOKEN_KEY, token);
}
