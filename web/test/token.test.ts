import { describe, expect, it } from 'vitest';
import { forgetToken, REMEMBER_KEY, rememberToken, remembersToken, takeToken, TOKEN_KEY, type TokenStores } from '../src/ui/token';
import { MemoryStore } from '../src/workspace/terminal-port';

const TOKEN = 'a'.repeat(64);

function address(hash: string) {
  const replaced: string[] = [];
  return { hash, pathname: '/', search: '', replaceState: (url: string) => replaced.push(url), replaced };
}

function stores(): TokenStores & { tab: MemoryStore; origin: MemoryStore } {
  return { tab: new MemoryStore(), origin: new MemoryStore() };
}

describe('token from the URL fragment', () => {
  it('takes it, keeps it for the tab and the origin, and strips it from the address bar', () => {
    const s = stores();
    const bar = address(`#token=${TOKEN}`);
    expect(takeToken(bar, s)).toBe(TOKEN);
    expect(s.tab.getItem(TOKEN_KEY)).toBe(TOKEN);
    expect(s.origin.getItem(TOKEN_KEY)).toBe(TOKEN);
    expect(bar.replaced).toEqual(['/']);
  });

  it('keeps other fragment parameters and falls back to the tab token after a reload', () => {
    const s = stores();
    s.tab.setItem(TOKEN_KEY, TOKEN);
    const bar = address('#x=1');
    expect(takeToken(bar, s)).toBe(TOKEN);
    expect(bar.replaced).toEqual([]);
    const withBoth = address(`#token=${'b'.repeat(64)}&x=1`);
    expect(takeToken(withBoth, s)).toBe('b'.repeat(64));
    expect(withBoth.replaced).toEqual(['/#x=1']);
  });

  it('a bookmark of the plain address finds the token kept for the origin', () => {
    const s = stores();
    s.origin.setItem(TOKEN_KEY, TOKEN);
    expect(takeToken(address(''), s)).toBe(TOKEN);
  });

  it('a newer link replaces the token kept for the origin', () => {
    const s = stores();
    s.origin.setItem(TOKEN_KEY, TOKEN);
    takeToken(address(`#token=${'c'.repeat(64)}`), s);
    expect(s.origin.getItem(TOKEN_KEY)).toBe('c'.repeat(64));
  });

  it('strips but refuses a malformed token, and ignores a malformed kept one', () => {
    const s = stores();
    const bar = address('#token=<script>');
    expect(takeToken(bar, s)).toBeNull();
    expect(bar.replaced).toEqual(['/']);
    s.origin.setItem(TOKEN_KEY, 'short');
    expect(takeToken(address(''), s)).toBeNull();
  });
});

describe('forgetting the token', () => {
  it('removes it from the tab and the origin, and later links are kept for their tab only', () => {
    const s = stores();
    takeToken(address(`#token=${TOKEN}`), s);
    forgetToken(s);
    expect(s.tab.getItem(TOKEN_KEY)).toBeNull();
    expect(s.origin.getItem(TOKEN_KEY)).toBeNull();
    expect(remembersToken(s)).toBe(false);
    expect(takeToken(address(''), s)).toBeNull();

    expect(takeToken(address(`#token=${TOKEN}`), s)).toBe(TOKEN);
    expect(s.tab.getItem(TOKEN_KEY)).toBe(TOKEN);
    expect(s.origin.getItem(TOKEN_KEY)).toBeNull();
  });

  it('remembering again undoes the opt-out', () => {
    const s = stores();
    forgetToken(s);
    rememberToken(s, TOKEN);
    expect(s.origin.getItem(REMEMBER_KEY)).toBeNull();
    expect(takeToken(address(''), { tab: new MemoryStore(), origin: s.origin })).toBe(TOKEN);
  });
});
