import { describe, expect, it } from 'vitest';
import { decideInput, TYPE_AHEAD_LIMIT, TypeAhead } from '../src/sessions/type-ahead';

describe('type-ahead decisions', () => {
  const live = { target: 'live' as const, readOnly: false, linkReady: true, holding: false };

  it('sends at once only when attached, connected, writable and nothing is held before', () => {
    expect(decideInput(live)).toBe('send');
    expect(decideInput({ ...live, linkReady: false })).toBe('hold');
    expect(decideInput({ ...live, holding: true })).toBe('hold');
    expect(decideInput({ ...live, target: 'waiting' })).toBe('hold');
  });

  it('refuses keys for a tab with no running program, and for a read-only view', () => {
    expect(decideInput({ ...live, target: 'ended' })).toBe('refuse_ended');
    expect(decideInput({ ...live, readOnly: true })).toBe('refuse_read_only');
  });
});

describe('TypeAhead', () => {
  it('holds keys in order and sends them once, joined', () => {
    const held = new TypeAhead();
    expect(held.hold('ec')).toBe(true);
    expect(held.hold('ho hi\r')).toBe(true);
    expect(held).toMatchObject({ keys: 2, bytes: 8 });
    const sent: string[] = [];
    expect(held.flush((d) => sent.push(d) > 0)).toBe(2);
    expect(held.flush((d) => sent.push(d) > 0)).toBe(0);
    expect(sent).toEqual(['echo hi\r']);
  });

  it('keeps what it holds when sending fails, to send it later', () => {
    const held = new TypeAhead();
    held.hold('x');
    expect(held.flush(() => false)).toBe(0);
    expect(held.keys).toBe(1);
  });

  it('is bounded at 4 KiB of UTF-8 and refuses a chunk that does not fit whole', () => {
    const held = new TypeAhead();
    expect(TYPE_AHEAD_LIMIT).toBe(4096);
    expect(held.hold('a'.repeat(4094))).toBe(true);
    expect(held.hold('é')).toBe(true); // two bytes: exactly full
    expect(held.hold('b')).toBe(false);
    expect(held.bytes).toBe(4096);
    const paste = new TypeAhead(10);
    paste.hold('12345');
    expect(paste.hold('abcdefgh')).toBe(false); // never half a paste
    expect(paste.bytes).toBe(5);
  });

  it('clear says how many keys it forgot', () => {
    const held = new TypeAhead();
    held.hold('a');
    held.hold('b');
    expect(held.clear()).toBe(2);
    expect(held).toMatchObject({ keys: 0, bytes: 0 });
  });
});
