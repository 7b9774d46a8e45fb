// Typing while a tab waits for its session (docs/protocol.md, "Typing while reconnecting (web
// UI)"). Keys typed while the link is down, or while the tab's attach has not been answered, are
// held per tab, in order, up to a bound, and sent once, in one pty_input, right after the attach
// answers. Keys that do not fit, or that have nowhere to go (the program ended, a read-only view),
// are refused out loud: the caller rings the terminal's bell and shows a toast. Nothing is dropped
// without a word. Pure: no clock, no network.

/** At most this many bytes (UTF-8) wait per tab. */
export const TYPE_AHEAD_LIMIT = 4096;

/** Where the tab stands for input: `live` (attached), `waiting` (link down, attach pending), `ended` (no program to type to). */
export type InputTarget = 'live' | 'waiting' | 'ended';

export type InputDecision =
  | 'send' // the session is attached and nothing waits before these keys
  | 'hold' // keep them until the attach answers
  | 'refuse_ended' // the tab has no running program to type to
  | 'refuse_read_only'; // this view may not type

export interface InputSituation {
  target: InputTarget;
  readOnly: boolean;
  /** Whether the connection is up and its handshake done. */
  linkReady: boolean;
  /** Whether keys are already held (new ones must queue behind them). */
  holding: boolean;
}

export function decideInput(s: InputSituation): InputDecision {
  if (s.target === 'ended') return 'refuse_ended';
  if (s.readOnly && s.target === 'live') return 'refuse_read_only';
  if (s.target === 'live' && s.linkReady && !s.holding) return 'send';
  return 'hold';
}

/** Keys held for one tab, in the order typed. */
export class TypeAhead {
  private chunks: string[] = [];
  private size = 0;
  private readonly encoder = new TextEncoder();

  constructor(readonly limit = TYPE_AHEAD_LIMIT) {}

  /** Number of key events held (a paste counts as one). */
  get keys(): number {
    return this.chunks.length;
  }

  /** Bytes held (UTF-8). */
  get bytes(): number {
    return this.size;
  }

  /**
   * Holds `data` if it fits whole; else refuses all of it (a half-held paste or escape sequence
   * would send something nobody typed). Returns whether it was held.
   */
  hold(data: string): boolean {
    const length = this.encoder.encode(data).length;
    if (this.size + length > this.limit) return false;
    this.chunks.push(data);
    this.size += length;
    return true;
  }

  /**
   * Hands everything held to `send` as one string; forgets it only when `send` says it went out.
   * Returns the number of keys sent (0 when nothing was held or sending failed).
   */
  flush(send: (data: string) => boolean): number {
    if (this.chunks.length === 0) return 0;
    const keys = this.chunks.length;
    if (!send(this.chunks.join(''))) return 0;
    this.clear();
    return keys;
  }

  /** Forgets everything held; returns how many keys that was (for the caller to say so). */
  clear(): number {
    const keys = this.chunks.length;
    this.chunks = [];
    this.size = 0;
    return keys;
  }
}
