// Per-tab bookkeeping of one session's output stream and its flow control (docs/protocol.md,
// "Flow control: live and lossless"). Pure: every decision is a method that updates this state and
// returns the effects to carry out (messages to send, the ack timer to start or cancel); the tab
// runs them with its clock and connection. Nothing here reads the time or talks to the network.
//
// Offsets: `received` = end of the last byte handed to the terminal; `rendered` = end of the last
// byte whose write callback has run; `pending` = bytes handed over whose callback has not run (the
// unrendered backlog).
//
// The machine, per attachment:
//   - every attach asks `flow: "lossless"`; the daemon may grant `live` (then no acks, no pty_flow);
//   - while lossless, rendered bytes are acknowledged with `pty_ack`, coalesced: at once when
//     `ackBytes` were rendered since the last ack or rendering caught up with everything received,
//     else after `ackDelayMs`; acks never go backwards and never past what this attachment sent;
//   - backlog above the high-water mark: `pty_flow{live}` (the session stops waiting for this tab);
//     below the low-water mark again: `pty_flow{lossless}` and an ack of what was rendered;
//   - page hidden (the browser throttles its timers, so write callbacks and the ack timer run late):
//     `pty_flow{live}` too; visible again: back to lossless under the same condition as the backlog
//     path. An attachment granted lossless flows lossless only while the page is visible AND the
//     backlog is low; an attach answered while hidden (or with a high backlog) goes live at once;
//   - backlog above the ceiling (live: the daemon does not wait, the terminal's buffer would grow
//     without bound and xterm discards writes past 50 MB): detach, and re-attach from `received`
//     once drained below the low-water mark;
//   - `pty_desync` (any reason): re-attach from `received`, lossless again;
//   - connection lost: the daemon-side attachment is gone with it; the next attach starts afresh.
import { MIN_FLOW_WINDOW, type FlowMode } from '../protocol/messages';

export interface FlowLimits {
  /** Unrendered bytes above which a lossless attachment switches to live. */
  highWater: number;
  /** Unrendered bytes below which it switches back to lossless (or re-attaches after a detach). */
  lowWater: number;
  /** Unrendered bytes above which the tab detaches altogether; default 4 × highWater. */
  ceiling?: number;
  /** The lossless window to ask for; default: the daemon's (4 MiB, capped by its ring). */
  window?: number;
  /** Rendered-but-unacknowledged bytes that make an ack go out at once; default 64 KiB. */
  ackBytes?: number;
  /** How long a smaller rendered amount may wait for its ack; default 50 ms (at most 100). */
  ackDelayMs?: number;
}

export const DEFAULT_FLOW_LIMITS: FlowLimits = {
  highWater: 2 * 1024 * 1024, lowWater: 256 * 1024, ceiling: 8 * 1024 * 1024, ackBytes: 64 * 1024, ackDelayMs: 50,
};

export const DEFAULT_ACK_BYTES = 64 * 1024;
export const DEFAULT_ACK_DELAY_MS = 50;
export const MAX_ACK_DELAY_MS = 100;

/** What the tab must do after a decision. */
export type FlowEffect =
  | { type: 'ack'; offset: number }
  | { type: 'flow'; flow: FlowMode; window?: number }
  | { type: 'start_ack_timer'; ms: number }
  | { type: 'cancel_ack_timer' }
  | { type: 'detach' }
  | { type: 'reattach' };

/**
 * The daemon-side attachment as this tab knows it: `none` (never attached, or dropped by a desync
 * or with the connection), `attaching` (attach sent, no answer yet), `attached` (output flows),
 * `parked` (detached by this tab above the ceiling, waiting to drain).
 */
export type AttachmentState = 'none' | 'attaching' | 'attached' | 'parked';

/** The flow fields of an `attach_session`. */
export interface AttachFlow {
  flow: FlowMode;
  window?: number;
}

/** What the flow machine reads from an `attach_result`. */
export interface AttachGrant {
  replay_from: number;
  flow?: FlowMode;
  window?: number | null;
}

/** Identifies one write to the terminal; its callback hands it back to `renderedUpTo`. */
export interface WriteTicket {
  readonly epoch: number;
  readonly endOffset: number;
  readonly length: number;
}

export class OutputStream {
  /** End offset of the last byte handed to the terminal; -1 = nothing yet. */
  received = -1;
  /** End offset of the last byte the terminal finished rendering; -1 = nothing (since the last reset). */
  rendered = -1;
  /** Bytes handed to the terminal whose write callback has not run. */
  pending = 0;
  /** Bytes dropped because they repeated what was already received. */
  duplicateBytes = 0;
  /** Number of times a chunk started after the expected offset (a gap). */
  gaps = 0;

  attachment: AttachmentState = 'none';
  /** The flow the daemon granted at attach. */
  granted: FlowMode = 'live';
  /** The flow in force now (the granted one, or live while the backlog is high or the page hidden). */
  flow: FlowMode = 'live';
  /** The granted lossless window, when the daemon said. */
  window: number | null = null;
  /** The last offset acknowledged on this attachment (starts at its replay_from); -1 = none. */
  acked = -1;
  /** The highest end offset this attachment has sent (frames seen since its attach_result). */
  sentHigh = -1;
  /** Whether an ack timer is running. */
  ackTimerArmed = false;
  /** Whether the page is hidden (a state of the page, not of the attachment: kept across attaches). */
  hidden = false;
  /** Bumped when the terminal is reset: callbacks of writes from before are not counted. */
  private epoch = 0;

  private readonly limits: Required<Omit<FlowLimits, 'window'>> & { window: number | undefined };

  constructor(limits: FlowLimits = DEFAULT_FLOW_LIMITS) {
    this.limits = {
      highWater: limits.highWater,
      lowWater: limits.lowWater,
      ceiling: limits.ceiling ?? 4 * limits.highWater,
      window: limits.window === undefined ? undefined : Math.max(MIN_FLOW_WINDOW, Math.floor(limits.window)),
      ackBytes: Math.max(1, limits.ackBytes ?? DEFAULT_ACK_BYTES),
      ackDelayMs: Math.min(MAX_ACK_DELAY_MS, Math.max(0, limits.ackDelayMs ?? DEFAULT_ACK_DELAY_MS)),
    };
  }

  /**
   * The backlog at which lossless gives way to live. In lossless the backlog can never exceed the
   * window (the daemon sends at most that far past the last ack), so the mark is kept at half the
   * granted window: a tab that stopped rendering must reach it, or it would pace the session.
   */
  get highWater(): number {
    const byWindow = this.granted === 'lossless' && this.window !== null ? Math.floor(this.window / 2) : Infinity;
    return Math.min(this.limits.highWater, byWindow);
  }

  get lowWater(): number {
    return Math.min(this.limits.lowWater, Math.floor(this.highWater / 2));
  }

  get ceiling(): number {
    return this.limits.ceiling;
  }

  /** The terminal already shows the stream up to `offset` (restored screen). */
  resumeAt(offset: number): void {
    this.received = offset;
    this.rendered = offset;
  }

  /** The tab now shows another session: nothing of the old stream counts any more. */
  forget(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    this.cancelAckTimer(effects);
    this.received = -1;
    this.rendered = -1;
    this.pending = 0;
    this.epoch++;
    this.attachment = 'none';
    this.granted = 'live';
    this.flow = 'live';
    this.window = null;
    this.acked = -1;
    this.sentHigh = -1;
    return effects;
  }

  /** What an `attach_session` asks for: always lossless (the daemon may still grant live). */
  attachFlow(): AttachFlow {
    return { flow: 'lossless', ...(this.limits.window === undefined ? {} : { window: this.limits.window }) };
  }

  /** An attach was sent: no acks until it is answered (the previous attachment is replaced). */
  attachRequested(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    this.cancelAckTimer(effects);
    this.attachment = 'attaching';
    return effects;
  }

  /**
   * The daemon answered the attach: the replay starts at `replay_from` (a gap when that is after
   * what we have: the ring moved on) and flows as granted. Ack bookkeeping starts over from
   * `replay_from`. A backlog still above the high-water mark, or a hidden page, switches to live
   * right away.
   */
  attached(grant: AttachGrant): FlowEffect[] {
    const replayFrom = grant.replay_from;
    if (this.received >= 0 && replayFrom > this.received) this.gaps++;
    if (this.received < 0 || replayFrom > this.received) this.received = replayFrom;
    const effects: FlowEffect[] = [];
    this.cancelAckTimer(effects);
    this.attachment = 'attached';
    this.granted = grant.flow === 'lossless' ? 'lossless' : 'live';
    this.flow = this.granted;
    this.window = this.granted === 'lossless' && typeof grant.window === 'number' ? grant.window : null;
    this.acked = replayFrom;
    this.sentHigh = replayFrom;
    this.checkBacklog(effects);
    return effects;
  }

  /** A snapshot stands for the stream up to `offset`: the terminal is reset and redrawn. */
  snapshotAt(offset: number): void {
    this.received = offset;
    this.noteSent(offset);
  }

  /**
   * Takes an output chunk ending at `endOffset` and returns the part not yet received (all of it
   * normally; a suffix after an overlap; null when everything was already received). A chunk that
   * was all duplicate may be acknowledged at once (it is rendered already).
   */
  accept(endOffset: number, payload: Uint8Array): { data: Uint8Array | null; effects: FlowEffect[] } {
    this.noteSent(endOffset);
    const start = endOffset - payload.length;
    if (this.received >= 0 && endOffset <= this.received) {
      this.duplicateBytes += payload.length;
      const effects: FlowEffect[] = [];
      this.maybeAck(effects);
      return { data: null, effects };
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
    return { data: fresh, effects: [] };
  }

  /** `length` bytes ending at `endOffset` are handed to the terminal; may switch to live or detach. */
  written(length: number, endOffset: number): { ticket: WriteTicket; effects: FlowEffect[] } {
    this.pending += length;
    const effects: FlowEffect[] = [];
    this.checkBacklog(effects);
    return { ticket: { epoch: this.epoch, endOffset, length }, effects };
  }

  /**
   * The terminal's write callback for `ticket` ran. Acknowledges (coalesced), switches back to
   * lossless once drained below the low-water mark (the page visible), or re-attaches when
   * detached above the ceiling.
   */
  renderedUpTo(ticket: WriteTicket): FlowEffect[] {
    const effects: FlowEffect[] = [];
    if (ticket.epoch !== this.epoch) return effects; // written before a reset: already forgotten
    this.pending = Math.max(0, this.pending - ticket.length);
    if (ticket.endOffset > this.rendered) this.rendered = ticket.endOffset;
    if (this.attachment === 'parked') {
      if (this.pending < this.lowWater) {
        this.attachment = 'none';
        effects.push({ type: 'reattach' });
      }
      return effects;
    }
    if (this.attachment !== 'attached') return effects;
    if (this.maybeResumeLossless(effects)) return effects;
    this.maybeAck(effects);
    return effects;
  }

  /**
   * The page was hidden or shown. Hidden: an attachment granted lossless switches to live (once;
   * no acks while hidden), since the browser throttles the timers that render and acknowledge.
   * Visible: back to lossless, with an ack of what was rendered, if the backlog is below the
   * low-water mark too; else it stays live until drained. Before the attach is answered (or while
   * parked) only the state is kept: the answer applies it.
   */
  pageHidden(hidden: boolean): FlowEffect[] {
    const effects: FlowEffect[] = [];
    if (this.hidden === hidden) return effects;
    this.hidden = hidden;
    if (this.attachment !== 'attached') return effects;
    if (hidden) this.checkBacklog(effects);
    else this.maybeResumeLossless(effects);
    return effects;
  }

  /** The ack timer fired: acknowledge whatever was rendered since the last ack. */
  ackTimerFired(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    this.ackTimerArmed = false;
    if (this.attachment !== 'attached' || this.flow !== 'lossless') return effects;
    const target = this.ackable();
    if (target > this.acked) this.sendAck(target, effects);
    return effects;
  }

  /**
   * The daemon dropped the attachment (`pty_desync`, any reason): re-attach from what the tab has.
   * Ignored while parked: that re-attach waits for the backlog to drain.
   */
  desync(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    if (this.attachment === 'parked') return effects;
    this.cancelAckTimer(effects);
    this.attachment = 'none';
    effects.push({ type: 'reattach' });
    return effects;
  }

  /** The connection went down: the daemon-side attachment is gone with it. */
  linkDown(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    this.cancelAckTimer(effects);
    this.attachment = 'none';
    this.flow = 'live';
    this.granted = 'live';
    this.window = null;
    return effects;
  }

  /** The daemon refused `pty_flow` lossless (`invalid_flow`): the attachment stays live. */
  flowRejected(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    this.cancelAckTimer(effects);
    this.granted = 'live';
    this.flow = 'live';
    this.window = null;
    return effects;
  }

  /** The terminal was reset: what it held, and its pending writes, are gone from our accounts. */
  resetTerminal(): void {
    this.pending = 0;
    this.rendered = -1;
    this.epoch++;
  }

  /** The offset the next ack may carry: rendered, but never past what this attachment sent. */
  private ackable(): number {
    return Math.min(this.rendered, this.sentHigh);
  }

  private noteSent(endOffset: number): void {
    if (this.attachment === 'attached' && endOffset > this.sentHigh) this.sentHigh = endOffset;
  }

  private maybeAck(effects: FlowEffect[]): void {
    if (this.attachment !== 'attached' || this.flow !== 'lossless') return;
    const target = this.ackable();
    if (target <= this.acked) return;
    const caughtUp = this.pending === 0 && this.rendered >= this.received;
    if (caughtUp || target - this.acked >= this.limits.ackBytes) {
      this.sendAck(target, effects);
    } else if (!this.ackTimerArmed) {
      this.ackTimerArmed = true;
      effects.push({ type: 'start_ack_timer', ms: this.limits.ackDelayMs });
    }
  }

  private sendAck(offset: number, effects: FlowEffect[]): void {
    this.acked = offset;
    effects.push({ type: 'ack', offset });
    this.cancelAckTimer(effects);
  }

  private cancelAckTimer(effects: FlowEffect[]): void {
    if (!this.ackTimerArmed) return;
    this.ackTimerArmed = false;
    effects.push({ type: 'cancel_ack_timer' });
  }

  /**
   * Switches a lossless-granted attachment that flows live back to lossless when the page is
   * visible and the backlog is below the low-water mark, acknowledging what was rendered.
   * Returns whether it did.
   */
  private maybeResumeLossless(effects: FlowEffect[]): boolean {
    if (this.granted !== 'lossless' || this.flow !== 'live' || this.hidden || this.pending >= this.lowWater) return false;
    this.flow = 'lossless';
    effects.push({ type: 'flow', flow: 'lossless', ...(this.limits.window === undefined ? {} : { window: this.limits.window }) });
    const target = this.ackable();
    if (target > this.acked) this.sendAck(target, effects);
    return true;
  }

  /** Lossless gives way to live above the high-water mark or while the page is hidden; detaches above the ceiling. */
  private checkBacklog(effects: FlowEffect[]): void {
    if (this.attachment !== 'attached') return;
    if (this.flow === 'lossless' && (this.hidden || this.pending > this.highWater)) {
      this.flow = 'live';
      this.cancelAckTimer(effects);
      effects.push({ type: 'flow', flow: 'live' });
    }
    if (this.pending > this.ceiling) {
      this.attachment = 'parked';
      this.cancelAckTimer(effects);
      effects.push({ type: 'detach' });
    }
  }
}
