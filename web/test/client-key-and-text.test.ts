import { describe, expect, it } from 'vitest';
import { commandText, parseArgv } from '../src/ui/status-text';
import { clientSessionKey, CLIENT_KEY } from '../src/workspace/persistence';
import { MemoryStore } from '../src/workspace/terminal-port';

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
