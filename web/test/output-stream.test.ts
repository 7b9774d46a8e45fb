import { describe, expect, it } from 'vitest';
import { OutputStream } from '../src/sessions/output-stream';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | null) => (data === null ? null : new TextDecoder().decode(data));

describe('OutputStream', () => {
  it('passes contiguous chunks through and tracks received and rendered offsets separately', () => {
    const stream = new OutputStream();
    stream.beginReplay(0);
    expect(text(stream.accept(5, bytes('hello')))).toBe('hello');
    expect(text(stream.accept(11, bytes(' world')))).toBe(' world');
    expect(stream.received).toBe(11);
    expect(stream.rendered).toBe(-1);
    stream.written(11);
    stream.renderedUpTo(5, 5);
    expect(stream.rendered).toBe(5);
    stream.renderedUpTo(11, 6);
    expect(stream).toMatchObject({ rendered: 11, pending: 0 });
  });

  it('drops bytes it already has, so a replay after a reconnect duplicates nothing', () => {
    const stream = new OutputStream();
    stream.resumeAt(10);
    stream.beginReplay(10);
    expect(stream.accept(10, bytes('0123456789'))).toBeNull();
    expect(text(stream.accept(14, bytes('6789abcd')))).toBe('abcd');
    expect(stream.duplicateBytes).toBe(14);
    expect(stream.received).toBe(14);
  });

  it('counts a gap when the replay starts after what the terminal has (ring moved on)', () => {
    const stream = new OutputStream();
    stream.resumeAt(100);
    stream.beginReplay(400);
    expect(stream.gaps).toBe(1);
    expect(text(stream.accept(403, bytes('abc')))).toBe('abc');
  });

  it('a snapshot sets the position the following replay continues from', () => {
    const stream = new OutputStream();
    stream.beginReplay(1000);
    stream.snapshotAt(1500);
    expect(stream.accept(1500, bytes('old'))).toBeNull();
    expect(text(stream.accept(1502, bytes('new')))).toBe('ew');
  });

  it('pauses above the high-water mark once and resumes below the low-water mark', () => {
    const stream = new OutputStream({ highWater: 100, lowWater: 20 });
    expect(stream.written(60)).toBeNull();
    expect(stream.written(60)).toBe('pause');
    expect(stream.written(60)).toBeNull();
    expect(stream.paused).toBe(true);
    expect(stream.renderedUpTo(60, 60)).toBeNull();
    expect(stream.renderedUpTo(120, 60)).toBeNull();
    expect(stream.renderedUpTo(180, 50)).toBe('resume');
    expect(stream.paused).toBe(false);
    expect(stream.renderedUpTo(180, 50)).toBeNull();
  });

  it('resetting the terminal clears the backlog', () => {
    const stream = new OutputStream({ highWater: 100, lowWater: 20 });
    stream.written(500);
    stream.resetTerminal();
    expect(stream.pending).toBe(0);
  });
});
