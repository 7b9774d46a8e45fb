// The daemon prints `http://127.0.0.1:PORT/#token=…`. The token is taken from the fragment, kept
// in sessionStorage for this browser tab, and removed from the address bar at once. It is never
// logged or put in a URL.
import type { KeyValueStore } from '../workspace/terminal-port';

export const TOKEN_KEY = 'limpet.token';

export interface AddressBar {
  hash: string;
  pathname: string;
  search: string;
  replaceState(url: string): void;
}

export function takeToken(address: AddressBar, session: KeyValueStore): string | null {
  const params = new URLSearchParams(address.hash.replace(/^#/, ''));
  const fromFragment = params.get('token');
  if (fromFragment !== null) {
    params.delete('token');
    const rest = params.toString();
    address.replaceState(address.pathname + address.search + (rest ? `#${rest}` : ''));
    if (/^[A-Za-z0-9_-]{16,256}$/.test(fromFragment)) {
      session.setItem(TOKEN_KEY, fromFragment);
      return fromFragment;
    }
  }
  return session.getItem(TOKEN_KEY);
}
