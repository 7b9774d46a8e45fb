// Binary frames (docs/protocol.md): kind, id length, session id, big-endian int64 offset, payload.

export const FRAME_OUTPUT = 1;
export const FRAME_INPUT = 2;
export const FRAME_SNAPSHOT = 3;

export interface BinaryFrame {
  kind: number;
  sessionId: string;
  /** kind 1: end offset of this chunk; kind 3: stream position the snapshot stands for. */
  offset: number;
  payload: Uint8Array;
}

const ascii = new TextDecoder('ascii');
const asciiEncoder = new TextEncoder();

/** Decodes one binary frame, or returns null when it is malformed. */
export function decodeFrame(data: ArrayBuffer | Uint8Array): BinaryFrame | null {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.length < 2) return null;
  const kind = bytes[0]!;
  const idLength = bytes[1]!;
  if (idLength < 1 || idLength > 64 || bytes.length < 2 + idLength + 8) return null;
  const sessionId = ascii.decode(bytes.subarray(2, 2 + idLength));
  const view = new DataView(bytes.buffer, bytes.byteOffset + 2 + idLength, 8);
  const offset = Number(view.getBigInt64(0, false));
  return { kind, sessionId, offset, payload: bytes.subarray(2 + idLength + 8) };
}

const utf8 = new TextEncoder();

/**
 * The one way keys leave the page: a `pty_input` frame (kind 2) of `data` as UTF-8; offset 1 marks
 * the terminal's own answer to a query in the output (a reply), 0 what a person typed.
 */
export function encodeInput(sessionId: string, data: string, reply: boolean): Uint8Array {
  return encodeFrame(FRAME_INPUT, sessionId, reply ? 1 : 0, utf8.encode(data));
}

/** Encodes one frame; used for `pty_input` (kind 2) and by tests for daemon frames. */
export function encodeFrame(kind: number, sessionId: string, offset: number, payload: Uint8Array): Uint8Array {
  const id = asciiEncoder.encode(sessionId);
  if (id.length < 1 || id.length > 64) throw new Error(`session id length ${id.length} is outside 1–64`);
  const frame = new Uint8Array(2 + id.length + 8 + payload.length);
  frame[0] = kind;
  frame[1] = id.length;
  frame.set(id, 2);
  new DataView(frame.buffer, 2 + id.length, 8).setBigInt64(0, BigInt(offset), false);
  frame.set(payload, 2 + id.length + 8);
  return frame;
}
