// Per-tab bookkeeping of one session's output stream and its flow control (docs/protocol.md,
// "Flow control: live and lossless"). Pure: every decision is a method that updates this state and
// returns the effects to carry out (messages to send, the ack timer to start or cancel); the tab
// runs them with its clock and connection. Nothing here reads the time or talks to the network.
//
// Offsets: `received` = end of the last byte handed to the terminal; `rendered` = end of the last
// byte whose write callback has run; `pending` = bytes handed over whose callback has not run (the
// unrendered backlog). Outside code reads the state through `state`, read-only: only the machine's
// methods change it.
//
// The machine, per attachment:
//   - every attach asks `flow: "lossless"`; the daemon may grant `live` (then no acks, no pty_flow);
//   - while lossless, rendered bytes are acknowledged with `pty_ack`, coalesced: at once when
//     `ackBytes` were rendered since the last ack or rendering caught up with everything received,
//     else after `ackDelayMs`; acks never go backwards and never past what this attachment sent;
//   - backlog above the high-water mark with nothing rendered for `stallMs`: `pty_flow{live}` (the
//     session stops waiting for a tab that stopped rendering); below the low-water mark again:
//     `pty_flow{lossless}` and an ack of what was rendered. A backlog alone is no sign of a slow tab:
//     the page's socket reads the network while the terminal parses, so during a flood the backlog
//     is most of the window (the daemon sends up to a window past the last ack, and acks follow
//     rendering); only a tab whose rendering stands still is let go;
//   - page hidden (the browser throttles its timers, so write callbacks and the ack timer run late):
//     `pty_flow{live}` too; visible again: back to lossless under the same condition as the backlog
//     path. An attachment granted lossless flows live while the page is hidden, and after a stall
//     until the backlog is low again; an attach answered while hidden goes live at once, one
//     answered with a backlog above the mark starts the stall watch;
//   - backlog above the ceiling (live: the daemon does not wait, the terminal's buffer would grow
//     without bound and xterm discards writes past 50 MB): detach, and re-attach from `received`
//     once drained below the low-water mark;
//   - `pty_desync` (any reason): re-attach from `received`, lossless again;
//   - connection lost: the daemon-side attachment is gone with it; the next attach starts afresh.
import { MIN_FLOW_WINDOW, type FlowMode } from '../protocol/messages';

export interface FlowLimits {
  /** Unrendered bytes above which a lossless attachment switches to live if nothing is rendered for `stallMs`. */
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
  /** How long a lossless backlog above the high-water mark may go with nothing rendered before the tab goes live; default 1000 ms. */
  stallMs?: number;
}

export const DEFAULT_FLOW_LIMITS: FlowLimits = {
  highWater: 2 * 1024 * 1024, lowWater: 256 * 1024, ceiling: 8 * 1024 * 1024, ackBytes: 64 * 1024, ackDelayMs: 50,
};

export const DEFAULT_ACK_BYTES = 64 * 1024;
export const DEFAULT_ACK_DELAY_MS = 50;
export const DEFAULT_STALL_MS = 1000;
export const MAX_ACK_DELAY_MS = 100;

/** What the tab must do after a decision. */
export type FlowEffect =
  | { type: 'ack'; offset: number }
  | { type: 'flow'; flow: FlowMode; window?: number }
  | { type: 'start_ack_timer'; ms: number }
  | { type: 'cancel_ack_timer' }
  | { type: 'start_stall_timer'; ms: number }
  | { type: 'cancel_stall_timer' }
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

/**
 * What the machine knows of its stream and attachment: read through `OutputStream.state`, changed
 * only by the machine's own methods.
 */
export interface OutputStreamState {
  /** End offset of the last byte handed to the terminal; -1 = nothing yet. */
  readonly received: number;
  /** End offset of the last byte the terminal finished rendering; -1 = nothing (since the last reset). */
  readonly rendered: number;
  /** Bytes handed to the terminal whose write callback has not run. */
  readonly pending: number;
  /** Bytes dropped because they repeated what was already received. */
  readonly duplicateBytes: number;
  /** Number of times a chunk started after the expected offset (a gap). */
  readonly gaps: number;
  readonly attachment: AttachmentState;
  /** The flow the daemon granted at attach. */
  readonly granted: FlowMode;
  /** The flow in force now (the granted one, or live while the backlog is high or the page hidden). */
  readonly flow: FlowMode;
  /** The granted lossless window, when the daemon said. */
  readonly window: number | null;
  /** The last offset acknowledged on this attachment (starts at its replay_from); -1 = none. */
  readonly acked: number;
  /** The highest end offset this attachment has sent (frames seen since its attach_result). */
  readonly sentHigh: number;
  /** Whether an ack timer is running. */
  readonly ackTimerArmed: boolean;
  /** Whether a stall timer is running, and what was rendered when it started. */
  readonly stallTimerArmed: boolean;
  readonly renderedAtStallCheck: number;
  /** Whether the page is hidden (a state of the page, not of the attachment: kept across attaches). */
  readonly hidden: boolean;
}

export class OutputStream {
  private readonly current: { -readonly [K in keyof OutputStreamState]: OutputStreamState[K] } = {
    received: -1, rendered: -1, pending: 0, duplicateBytes: 0, gaps: 0, attachment: 'none', granted: 'live', flow: 'live',
    window: null, acked: -1, sentHigh: -1, ackTimerArmed: false, stallTimerArmed: false, renderedAtStallCheck: -1, hidden: false,
  };
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
      stallMs: Math.max(0, limits.stallMs ?? DEFAULT_STALL_MS),
    };
  }

  /** The machine's state, read-only: only the methods below change it. */
  get state(): OutputStreamState {
    return this.current;
  }

  /**
   * The backlog at which lossless gives way to live. In lossless the backlog can never exceed the
   * window (the daemon sends at most that far past the last ack), so the mark is kept at half the
   * granted window: a tab that stopped rendering must reach it, or it would pace the session.
   */
  get highWater(): number {
    const byWindow = this.current.granted === 'lossless' && this.current.window !== null ? Math.floor(this.current.window / 2) : Infinity;
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
    this.current.received = offset;
    this.current.rendered = offset;
  }

  /** The tab now shows another session: nothing of the old stream counts any more. */
  forget(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    this.cancelTimers(effects);
    this.current.received = -1;
    this.current.rendered = -1;
    this.current.pending = 0;
    this.epoch++;
    this.current.attachment = 'none';
    this.current.granted = 'live';
    this.current.flow = 'live';
    this.current.window = null;
    this.current.acked = -1;
    this.current.sentHigh = -1;
    return effects;
  }

  /** What an `attach_session` asks for: always lossless (the daemon may still grant live). */
  attachFlow(): AttachFlow {
    return { flow: 'lossless', ...(this.limits.window === undefined ? {} : { window: this.limits.window }) };
  }

  /** An attach was sent: no acks until it is answered (the previous attachment is replaced). */
  attachRequested(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    this.cancelTimers(effects);
    this.current.attachment = 'attaching';
    return effects;
  }

  /**
   * The daemon answered the attach: the replay starts at `replay_from` (a gap when that is after
   * what we have: the ring moved on) and flows as granted. Ack bookkeeping starts over from
   * `replay_from`. A hidden page switches to live right away; a backlog still above the
   * high-water mark starts the stall watch.
   */
  attached(grant: AttachGrant): FlowEffect[] {
    const replayFrom = grant.replay_from;
    if (this.current.received >= 0 && replayFrom > this.current.received) this.current.gaps++;
    if (this.current.received < 0 || replayFrom > this.current.received) this.current.received = replayFrom;
    const effects: FlowEffect[] = [];
    this.cancelTimers(effects);
    this.current.attachment = 'attached';
    this.current.granted = grant.flow === 'lossless' ? 'lossless' : 'live';
    this.current.flow = this.current.granted;
    this.current.window = this.current.granted === 'lossless' && typeof grant.window === 'number' ? grant.window : null;
    this.current.acked = replayFrom;
    this.current.sentHigh = replayFrom;
    this.checkBacklog(effects);
    return effects;
  }

  /** A snapshot stands for the stream up to `offset`: the terminal is reset and redrawn. */
  snapshotAt(offset: number): void {
    this.current.received = offset;
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
    if (this.current.received >= 0 && endOffset <= this.current.received) {
      this.current.duplicateBytes += payload.length;
      const effects: FlowEffect[] = [];
      this.maybeAck(effects);
      return { data: null, effects };
    }
    let fresh = payload;
    if (this.current.received >= 0 && start < this.current.received) {
      const overlap = this.current.received - start;
      this.current.duplicateBytes += overlap;
      fresh = payload.subarray(overlap);
    } else if (this.current.received >= 0 && start > this.current.received) {
      this.current.gaps++;
    }
    this.current.received = endOffset;
    return { data: fresh, effects: [] };
  }

  /** `length` bytes ending at `endOffset` are handed to the terminal; may switch to live or detach. */
  written(length: number, endOffset: number): { ticket: WriteTicket; effects: FlowEffect[] } {
    this.current.pending += length;
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
    this.current.pending = Math.max(0, this.current.pending - ticket.length);
    if (ticket.endOffset > this.current.rendered) this.current.rendered = ticket.endOffset;
    if (this.current.attachment === 'parked') {
      if (this.current.pending < this.lowWater) {
        this.current.attachment = 'none';
        effects.push({ type: 'reattach' });
      }
      return effects;
    }
    if (this.current.attachment !== 'attached') return effects;
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
    if (this.current.hidden === hidden) return effects;
    this.current.hidden = hidden;
    if (this.current.attachment !== 'attached') return effects;
    if (hidden) this.checkBacklog(effects);
    else this.maybeResumeLossless(effects);
    return effects;
  }

  /** The ack timer fired: acknowledge whatever was rendered since the last ack. */
  ackTimerFired(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    this.current.ackTimerArmed = false;
    if (this.current.attachment !== 'attached' || this.current.flow !== 'lossless') return effects;
    const target = this.ackable();
    if (target > this.current.acked) this.sendAck(target, effects);
    return effects;
  }

  /**
   * The stall timer fired: a backlog still above the high-water mark with nothing rendered since
   * the timer started goes live; one that is being rendered is looked at again after `stallMs`.
   */
  stallTimerFired(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    this.current.stallTimerArmed = false;
    if (this.current.attachment !== 'attached' || this.current.flow !== 'lossless' || this.current.pending <= this.highWater) return effects;
    if (this.current.rendered === this.current.renderedAtStallCheck) this.goLive(effects);
    else this.armStallTimer(effects);
    return effects;
  }

  /**
   * The daemon dropped the attachment (`pty_desync`, any reason): re-attach from what the tab has.
   * Ignored while parked: that re-attach waits for the backlog to drain.
   */
  desync(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    if (this.current.attachment === 'parked') return effects;
    this.cancelTimers(effects);
    this.current.attachment = 'none';
    effects.push({ type: 'reattach' });
    return effects;
  }

  /** The connection went down: the daemon-side attachment is gone with it. */
  linkDown(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    this.cancelTimers(effects);
    this.current.attachment = 'none';
    this.current.flow = 'live';
    this.current.granted = 'live';
    this.current.window = null;
    return effects;
  }

  /** The daemon refused `pty_flow` lossless (`invalid_flow`): the attachment stays live. */
  flowRejected(): FlowEffect[] {
    const effects: FlowEffect[] = [];
    this.cancelTimers(effects);
    this.current.granted = 'live';
    this.current.flow = 'live';
    this.current.window = null;
    return effects;
  }

  /** The terminal was reset for a replay from the start: nothing of the stream is in it any more. */
  startOver(): void {
    this.resetTerminal();
    this.current.received = -1;
  }

  /** The terminal was reset: what it held, and its pending writes, are gone from our accounts. */
  resetTerminal(): void {
    this.current.pending = 0;
    this.current.rendered = -1;
    this.epoch++;
  }

  /** The offset the next ack may carry: rendered, but never past what this attachment sent. */
  private ackable(): number {
    return Math.min(this.current.rendered, this.current.sentHigh);
  }

  private noteSent(endOffset: number): void {
    if (this.current.attachment === 'attached' && endOffset > this.current.sentHigh) this.current.sentHigh = endOffset;
  }

  private maybeAck(effects: FlowEffect[]): void {
    if (this.current.attachment !== 'attached' || this.current.flow !== 'lossless') return;
    const target = this.ackable();
    if (target <= this.current.acked) return;
    const caughtUp = this.current.pending === 0 && this.current.rendered >= this.current.received;
    if (caughtUp || target - this.current.acked >= this.limits.ackBytes) {
      this.sendAck(target, effects);
    } else if (!this.current.ackTimerArmed) {
      this.current.ackTimerArmed = true;
      effects.push({ type: 'start_ack_timer', ms: this.limits.ackDelayMs });
    }
  }

  private sendAck(offset: number, effects: FlowEffect[]): void {
    this.current.acked = offset;
    effects.push({ type: 'ack', offset });
    this.cancelAckTimer(effects);
  }

  private cancelAckTimer(effects: FlowEffect[]): void {
    if (!this.current.ackTimerArmed) return;
    this.current.ackTimerArmed = false;
    effects.push({ type: 'cancel_ack_timer' });
  }

  private armStallTimer(effects: FlowEffect[]): void {
    if (this.current.stallTimerArmed) return;
    this.current.stallTimerArmed = true;
    this.current.renderedAtStallCheck = this.current.rendered;
    effects.push({ type: 'start_stall_timer', ms: this.limits.stallMs });
  }

  private cancelStallTimer(effects: FlowEffect[]): void {
    if (!this.current.stallTimerArmed) return;
    this.current.stallTimerArmed = false;
    effects.push({ type: 'cancel_stall_timer' });
  }

  private cancelTimers(effects: FlowEffect[]): void {
    this.cancelAckTimer(effects);
    this.cancelStallTimer(effects);
  }

  /** Lossless gives way to live: the session stops waiting for this tab, and no acks go. */
  private goLive(effects: FlowEffect[]): void {
    this.current.flow = 'live';
    this.cancelTimers(effects);
    effects.push({ type: 'flow', flow: 'live' });
  }

  /**
   * Switches a lossless-granted attachment that flows live back to lossless when the page is
   * visible and the backlog is below the low-water mark, acknowledging what was rendered.
   * Returns whether it did.
   */
  private maybeResumeLossless(effects: FlowEffect[]): boolean {
    if (this.current.granted !== 'lossless' || this.current.flow !== 'live' || this.current.hidden || this.current.pending >= this.lowWater) return false;
    this.current.flow = 'lossless';
    effects.push({ type: 'flow', flow: 'lossless', ...(this.limits.window === undefined ? {} : { window: this.limits.window }) });
    const target = this.ackable();
    if (target > this.current.acked) this.sendAck(target, effects);
    return true;
  }

  /**
   * Lossless gives way to live while the page is hidden, and watches a backlog above the
   * high-water mark for a stall; detaches above the ceiling.
   */
  private checkBacklog(effects: FlowEffect[]): void {
    if (this.current.attachment !== 'attached') return;
    if (this.current.flow === 'lossless' && this.current.hidden) this.goLive(effects);
    else if (this.current.flow === 'lossless' && this.current.pending > this.highWater) this.armStallTimer(effects);
    if (this.current.pending > this.ceiling) {
      this.current.attachment = 'parked';
      this.cancelTimers(effects);
      effects.push({ type: 'detach' });
    }
  }
}
