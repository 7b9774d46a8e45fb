import { describe, expect, it } from 'vitest';
import { commandText, parseArgv } from '../src/ui/status-text';
import { takeToken, TOKEN_KEY } from '../src/ui/token';
import { clientSessionKey, CLIENT_KEY } from '../src/workspace/persistence';
import { MemoryStore } from '../src/workspace/terminal-port';

const TOKEN = 'a'.repeat(64);

function address(hash: string) {
  const replaced: string[] = [];
  return { hash, pathname: '/', search: '', replaceState: (url: string) => replaced.push(url), replaced };
}

describe('token from the URL fragment', () => {
  it('takes it, keeps it for the tab and strips it from the address bar', () => {
    const store = new MemoryStore();
    const bar = address(`#token=${TOKEN}`);
    expect(takeToken(bar, store)).toBe(TOKEN);
    expect(store.getItem(TOKEN_KEY)).toBe(TOKEN);
    expect(bar.replaced).toEqual(['/']);
  });

  it('keeps other fragment parameters and falls back to the stored token after a reload', () => {
    const store = new MemoryStore();
    store.setItem(TOKEN_KEY, TOKEN);
    const bar = address('#x=1');
    expect(takeToken(bar, store)).toBe(TOKEN);
    expect(bar.replaced).toEqual([]);
    const withBoth = address(`#token=${'b'.repeat(64)}&x=1`);
    expect(takeToken(withBoth, store)).toBe('b'.repeat(64));
    expect(withBoth.replaced).toEqual(['/#x=1']);
  });

  it('strips but refuses a malformed token', () => {
    const store = new MemoryStore();
    const bar = address('#token=<script>');
    expect(takeToken(bar, store)).toBeNull();
    expect(bar.replaced).toEqual(['/']);
  });
});

describe('client session key', () => {
  it('is created once per profile and reused', () => {
    const store = new MemoryStore();
    const key = clientSessionKey(store, (n) => new Uint8Array(n).fill(5));
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(clientSessionKey(store, () => new Uint8Array(32).fill(9))).toBe(key);
    store.setItem(CLIENT_KEY, 'bad key!');
    expect(clientSessionKey(store, (n) => new Uint8Array(n).fill(1))).not.toBe('bad key!');
  });
});

describe('argv parsing for "new command"', () => {
  it('splits on whitespace and honours quotes and escapes', () => {
    expect(parseArgv('vim  -R "my file.txt"')).toEqual(['vim', '-R', 'my file.txt']);
    expect(parseArgv(`sh -c 'echo "hi there"; exit 3'`)).toEqual(['sh', '-c', 'echo "hi there"; exit 3']);
    expect(parseArgv('a\\ b "" c')).toEqual(['a b', '', 'c']);
    expect(parseArgv('   ')).toEqual([]);
  });

  it('shows argv back quoted where needed', () => {
    expect(commandText(['bash', '-l'])).toBe('bash -l');
    expect(commandText(['sh', '-c', "echo 'x'"])).toBe(`sh -c 'echo '\\''x'\\'''`);
  });
});
