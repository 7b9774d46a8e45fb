import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame, FRAME_INPUT, FRAME_OUTPUT, FRAME_SNAPSHOT } from '../src/protocol/binary-frames';
import { parseServerEvent } from '../src/protocol/messages';

describe('binary frames', () => {
  it('round-trips an output frame with a large offset', () => {
    const payload = new TextEncoder().encode('hello\r\n');
    const frame = encodeFrame(FRAME_OUTPUT, 'k3x9q2', 2 ** 40 + 7, payload);
    expect(frame[0]).toBe(1);
    expect(frame[1]).toBe(6);
    const decoded = decodeFrame(frame.buffer as ArrayBuffer)!;
    expect(decoded.kind).toBe(FRAME_OUTPUT);
    expect(decoded.sessionId).toBe('k3x9q2');
    expect(decoded.offset).toBe(2 ** 40 + 7);
    expect(new TextDecoder().decode(decoded.payload)).toBe('hello\r\n');
  });

  it('lays out the offset big-endian right after the id', () => {
    const frame = encodeFrame(FRAME_SNAPSHOT, 'a', 258, new Uint8Array([9]));
    expect(Array.from(frame)).toEqual([3, 1, 97, 0, 0, 0, 0, 0, 0, 1, 2, 9]);
  });

  it('decodes a frame that sits inside a larger buffer', () => {
    const inner = encodeFrame(FRAME_INPUT, 'abc', 0, new Uint8Array([1, 2, 3]));
    const outer = new Uint8Array(inner.length + 5);
    outer.set(inner, 5);
    const decoded = decodeFrame(outer.subarray(5))!;
    expect(decoded.sessionId).toBe('abc');
    expect(Array.from(decoded.payload)).toEqual([1, 2, 3]);
  });

  it('rejects truncated and malformed frames', () => {
    expect(decodeFrame(new Uint8Array([1]))).toBeNull();
    expect(decodeFrame(new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]))).toBeNull();
    expect(decodeFrame(new Uint8Array([1, 3, 97, 98, 99, 0, 0]))).toBeNull();
    expect(() => encodeFrame(FRAME_INPUT, '', 0, new Uint8Array())).toThrow();
  });
});

describe('text events', () => {
  it('parses objects with a type and ignores everything else', () => {
    expect(parseServerEvent('{"type":"ack","command":"detach_session","extra":1}')).toEqual({
      type: 'ack', command: 'detach_session', extra: 1,
    });
    expect(parseServerEvent('not json')).toBeNull();
    expect(parseServerEvent('[1,2]')).toBeNull();
    expect(parseServerEvent('{"kind":"x"}')).toBeNull();
    expect(parseServerEvent('null')).toBeNull();
  });
});
