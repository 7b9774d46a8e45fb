// Per-tab bookkeeping of one session's output stream: which bytes were handed to xterm
// (`received`), which xterm finished rendering (`rendered`, advanced in write callbacks), and
// flow control by watermarks: above `highWater` unrendered bytes the tab detaches, and it
// re-attaches from `received` once the backlog drains below `lowWater`.

export interface FlowLimits {
  highWater: number;
  lowWater: number;
}

export const DEFAULT_FLOW_LIMITS: FlowLimits = { highWater: 2 * 1024 * 1024, lowWater: 256 * 1024 };

export type FlowSignal = 'pause' | 'resume' | null;

export class OutputStream {
  /** End offset of the last byte handed to the terminal; -1 = nothing yet. */
  received = -1;
  /** End offset of the last byte the terminal finished rendering; -1 = nothing yet. */
  rendered = -1;
  /** Bytes handed to the terminal whose write callback has not run. */
  pending = 0;
  /** True while detached because of backlog. */
  paused = false;
  /** Bytes dropped because they repeated what was already received. */
  duplicateBytes = 0;
  /** Number of times a chunk started after the expected offset (a gap). */
  gaps = 0;

  constructor(private readonly limits: FlowLimits = DEFAULT_FLOW_LIMITS) {}

  /** The terminal already shows the stream up to `offset` (restored screen or reattach). */
  resumeAt(offset: number): void {
    this.received = offset;
    this.rendered = offset;
  }

  /**
   * The daemon said replay starts at `replayFrom`. When it starts after what we have, there is
   * a gap (the ring moved on); output is still accepted from there.
   */
  beginReplay(replayFrom: number): void {
    if (this.received >= 0 && replayFrom > this.received) this.gaps++;
    if (this.received < 0 || replayFrom > this.received) this.received = replayFrom;
  }

  /** A snapshot stands for the stream up to `offset`: the terminal is reset and redrawn. */
  snapshotAt(offset: number): void {
    this.received = offset;
  }

  /**
   * Takes an output chunk ending at `endOffset` and returns the part not yet received (all of it
   * normally; a suffix after an overlap; null when everything was already received).
   */
  accept(endOffset: number, payload: Uint8Array): Uint8Array | null {
    const start = endOffset - payload.length;
    if (this.received >= 0 && endOffset <= this.received) {
      this.duplicateBytes += payload.length;
      return null;
    }
    let fresh = payload;
    if (this.received >= 0 && start < this.received) {
      const overlap = this.received - start;
      this.duplicateBytes += overlap;
      fresh = payload.subarray(overlap);
    } else if (this.received >= 0 && start > this.received) {
      this.gaps++;
    }
    this.received = endOffset;
    return fresh;
  }

  /** Call when `length` bytes are handed to the terminal; may ask to pause. */
  written(length: number): FlowSignal {
    this.pending += length;
    if (!this.paused && this.pending > this.limits.highWater) {
      this.paused = true;
      return 'pause';
    }
    return null;
  }

  /** Call from the terminal's write callback for a chunk ending at `endOffset`; may ask to resume. */
  renderedUpTo(endOffset: number, length: number): FlowSignal {
    this.pending = Math.max(0, this.pending - length);
    if (endOffset > this.rendered) this.rendered = endOffset;
    if (this.paused && this.pending < this.limits.lowWater) {
      this.paused = false;
      return 'resume';
    }
    return null;
  }

  /** The terminal was reset: anything pending in it is gone from our accounts. */
  resetTerminal(): void {
    this.pending = 0;
  }
}
