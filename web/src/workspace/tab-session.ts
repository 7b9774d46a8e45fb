// One terminal tab bound to one daemon session: feeds the session's output into the terminal
// without gaps or duplicates, at the session's size (the terminal resizes where the session's
// output changes size, and says when that is not this viewer's size: `sizedFor`), tracks the
// rendered offset in xterm's write callbacks, and carries out
// the flow decisions of its OutputStream (lossless with coalesced pty_ack, live via pty_flow while
// the backlog is high or the page hidden, re-attach with `since` after a desync). The decisions are
// the stream's; this class only runs their effects with the clock and the link. It also holds the
// keys typed while it waits for its session (type-ahead.ts), sends keys as binary pty_input frames
// (the one way keys leave the page), shows keys the daemon holds for a stuck session as pending,
// and names itself (tab-name.ts).
import type { Clock, TimerHandle } from '../core/clock';
import type { Disposable } from '../core/disposable';
import { FRAME_OUTPUT, FRAME_SNAPSHOT, type BinaryFrame } from '../protocol/binary-frames';
import type { AttachResult, ClientCommand, SessionInfo, SessionResized } from '../protocol/messages';
import { OutputStream, type AttachFlow, type FlowEffect, type FlowLimits } from '../sessions/output-stream';
import { exitedOffer, type KeysNotSentReason, type TabOffer } from '../sessions/tab-messages';
import { cleanTitle, isPersonLabel, tabName } from '../sessions/tab-name';
import type { TabRecord } from '../sessions/tab-record';
import { decideInput, TypeAhead, type InputTarget } from '../sessions/type-ahead';
import type { TerminalPort } from './terminal-port';

export type TabPhase =
  | 'opening' // waiting for its first attach in this page (overlay spinner)
  | 'live' // attached, output flowing
  | 'reconnecting' // the link is down or a re-attach is in flight (overlay over the old screen)
  | 'exited' // the program ended (the offer says how, and offers Restart)
  | 'failed'; // no program to show: not started, not attachable, or no longer existing (see offer)

export interface TabView {
  tabId: string;
  name: string;
  sessionId: string | null;
  session: SessionInfo | null;
  phase: TabPhase;
  /** Whether the first attach in this page has completed. */
  loadedOnce: boolean;
  readOnly: boolean;
  /** Shown above the terminal: what the tab is waiting for. */
  notice: string | null;
  /** Why the tab shows no live program, and what a person can ask for (Restart, New, Try again). */
  offer: TabOffer | null;
  /**
   * Keys typed and not yet taken by the program: held by the page while it reconnects (see
   * type-ahead.ts), or sent and held by the daemon while the session's data plane is stuck.
   */
  pendingKeys: number;
  /**
   * The session's size while it is not this viewer's: another viewer, the one a person used last,
   * sized it. Null when it is this viewer's size (or this viewer was never shown).
   */
  sizedFor: { cols: number; rows: number } | null;
}

export interface TabLink {
  attach(tab: TabSession, since: number | undefined): void;
  /** Detaches (the backlog passed the ceiling); the stream asks to re-attach once drained. */
  detach(tab: TabSession): void;
  /** Sends a command that has no reply (pty_ack, pty_flow); false when offline. */
  send(command: ClientCommand): boolean;
  /** Sends keys as a binary pty_input frame (`reply`: the terminal's answer to a query); false when offline. */
  sendInput(sessionId: string, data: string, reply: boolean): boolean;
  changed(): void;
  /** `keys` typed into this tab will not be sent; the bell has rung, the link says why. */
  keysNotSent(tab: TabSession, keys: number, reason: KeysNotSentReason): void;
}

export class TabSession {
  readonly stream: OutputStream;
  readonly typeAhead = new TypeAhead();
  /** End offset of the current attachment's replay; -1 while an attach is on its way. */
  private replayEnd = -1;
  view: TabView;
  /** Whether the terminal shows output that `stream.state.rendered` describes (restored or rendered). */
  hasContent = false;
  /** A recoverable session waits for a person to show this tab before it is attached. */
  awaitingShow = false;
  /** Set while an attach is in flight whose answer should reset the terminal first. */
  private resetOnAttach = false;
  /** A person started this tab's session (+ Terminal, Restart): once attached it takes the session's size. */
  takeSizeOnAttach = false;
  /** The session's size as of the last attach answer: a snapshot that follows is drawn at it. */
  private sessionSize: { cols: number; rows: number } | null = null;
  /** Session resizes announced for offsets the output has not reached yet, in offset order. */
  private pendingSizes: SessionResized[] = [];
  /** The stream's timers (its ack delay, its stall watch), started and cancelled as it says. */
  private readonly timers: Record<'ack' | 'stall', TimerHandle | null> = { ack: null, stall: null };
  /** Keys this page sent that the daemon says wait for the session's program (input_waiting). */
  private daemonWaitingKeys = 0;
  private readonly titleSubscription: Disposable;

  constructor(
    public record: TabRecord,
    readonly terminal: TerminalPort,
    private readonly link: TabLink,
    private readonly clock: Clock,
    limits?: FlowLimits,
  ) {
    this.stream = new OutputStream(limits);
    this.view = {
      tabId: record.tabId, name: record.name, sessionId: record.serverSessionId, session: null,
      phase: 'opening', loadedOnce: false, readOnly: false, notice: null, offer: null, pendingKeys: 0, sizedFor: null,
    };
    this.titleSubscription = terminal.onTitleChange((title) => this.onTitle(title));
  }

  get sessionId(): string | null {
    return this.record.serverSessionId;
  }

  /** Binds the tab to a (new) session; the old screen is kept until the attach answers. */
  bindSession(session: SessionInfo, daemonInstanceId: string): void {
    this.record = {
      ...this.record, serverSessionId: session.id, daemonInstanceId, renderedOffset: -1,
      command: session.command, cwd: session.cwd, start: null, listed: false, title: null,
    };
    this.run(this.stream.forget());
    this.hasContent = false;
    this.awaitingShow = false;
    this.daemonWaitingKeys = 0;
    this.pendingSizes = [];
    this.update({ sessionId: session.id, session, offer: null, notice: null, pendingKeys: this.typeAhead.keys, sizedFor: null });
    this.refreshName();
  }

  /**
   * A person asked for a new session in this tab (+ Terminal, Restart, New): the tab lets go of
   * its old session (its screen stays until the new one answers) and waits for the start.
   */
  requestStart(notice: string | null): void {
    const label = this.personLabel(); // a person's label for the old session names the new one too
    this.record = {
      ...this.record, serverSessionId: null, daemonInstanceId: null, renderedOffset: -1, start: 'requested', title: null,
      ...(label ? { name: label, userNamed: true } : {}),
    };
    this.run(this.stream.forget());
    this.hasContent = false;
    this.awaitingShow = false;
    this.daemonWaitingKeys = 0;
    this.update({
      sessionId: null, session: null, offer: null, notice, phase: this.view.loadedOnce ? 'reconnecting' : 'opening', pendingKeys: this.typeAhead.keys,
    });
  }

  /** spawn_session went out: from now on a lost answer leaves the outcome unknown. */
  startSent(): void {
    this.record = { ...this.record, start: 'sent' };
    this.update({ notice: null });
  }

  /** The start was never sent after all (the connection was gone): it waits for the next connection. */
  startNotSent(): void {
    this.record = { ...this.record, start: 'requested' };
    this.update({ notice: 'Starts as soon as the daemon is reachable again.' });
  }

  /** No program to show, and why: the offer says what a person can ask for. */
  showOffer(offer: TabOffer): void {
    if (this.record.serverSessionId === null) this.record = { ...this.record, start: null };
    this.dropHeldKeys('ended');
    this.update({ phase: offer.kind === 'exited' ? 'exited' : 'failed', offer, notice: null });
  }

  /** The session was seen in a daemon list: its absence from a later one means it was removed. */
  markListed(session: SessionInfo): void {
    if (!this.record.listed) this.record = { ...this.record, listed: true };
    this.update({ session });
    this.refreshName();
  }

  /** A person renamed the tab: their name wins over titles and defaults from now on. */
  rename(name: string): void {
    this.record = { ...this.record, name, userNamed: true };
    this.update({ name });
  }

  /** The label to give a new session of this tab: a person's name, else none (the daemon's default). */
  personLabel(): string | undefined {
    const label = this.view.session?.label ?? null;
    if (this.record.userNamed) return this.record.name;
    return label !== null && isPersonLabel(label, this.view.session?.command ?? null) ? label : undefined;
  }

  /**
   * A person typed `data`: sent now when attached, held (in order, bounded) while the tab waits
   * for its session, refused with the bell when it cannot be held or has nowhere to go.
   */
  type(data: string, linkReady: boolean): void {
    const decision = decideInput({ target: this.inputTarget(), readOnly: this.view.readOnly, linkReady, holding: this.typeAhead.keys > 0 });
    if (decision === 'send' && this.sendInput(data)) return;
    if (decision === 'send' || decision === 'hold') {
      if (this.typeAhead.hold(data)) return this.showPending();
      return this.refuseKeys(1, 'full');
    }
    this.refuseKeys(1, decision === 'refuse_read_only' ? 'read_only' : 'ended');
  }

  /**
   * The terminal answered a query in the output. Answers to replayed output (written before the
   * replay's end has been rendered) are dropped: those questions were asked long ago, and their
   * answers would reach the program as if typed. Live answers go as `reply`, for the daemon to pass
   * on only from the attachment that typed last; they are never held while the link is down.
   */
  reply(data: string, linkReady: boolean): void {
    const sessionId = this.sessionId;
    if (!linkReady || sessionId === null || this.view.phase !== 'live' || this.view.readOnly) return;
    if (this.replayEnd < 0 || this.stream.state.rendered < this.replayEnd) return;
    this.link.sendInput(sessionId, data, true);
  }

  /** The daemon holds `keys` of this page's keys for the session (its program's side is stuck); 0: all arrived. */
  onInputWaiting(keys: number): void {
    this.daemonWaitingKeys = keys;
    this.showPending();
  }

  /** Keys this page sent will never reach the program (it ended with them waiting): said out loud. */
  onInputUndelivered(keys: number): void {
    this.daemonWaitingKeys = 0;
    this.showPending();
    this.refuseKeys(keys, 'undelivered');
  }

  /** The daemon refused a key: as many keys as it holds for a stuck session already wait. */
  onInputRefused(): void {
    this.refuseKeys(1, 'daemon_full');
  }

  /**
   * Marks an attach as sent; without `since` the terminal is reset when the answer comes. Returns
   * the flow fields the attach asks for (lossless).
   */
  attaching(since: number | undefined): AttachFlow {
    this.resetOnAttach = since === undefined;
    this.replayEnd = -1;
    this.run(this.stream.attachRequested());
    this.awaitingShow = false;
    if (this.view.phase === 'failed') this.update({ offer: null, phase: this.view.loadedOnce ? 'reconnecting' : 'opening' });
    else if (this.view.loadedOnce && this.view.phase !== 'exited') this.update({ phase: 'reconnecting' });
    return this.stream.attachFlow();
  }

  onAttachResult(result: AttachResult): void {
    if (this.resetOnAttach) {
      this.terminal.reset();
      this.stream.startOver();
      this.resetOnAttach = false;
    }
    this.sessionSize = { cols: result.session.cols, rows: result.session.rows };
    this.run(this.stream.attached(result));
    // A replay continues what the terminal has: the session is at this size once it ends, at the latest.
    if (!result.snapshot) this.sizeFrom({ type: 'session_resized', session_id: result.session_id, ...this.sessionSize, offset: result.end_offset });
    // The replay (or snapshot) ends here: until the terminal has rendered it, its answers are stale.
    this.replayEnd = result.end_offset;
    this.update({ loadedOnce: true, readOnly: result.read_only, session: result.session, notice: null });
    this.refreshName();
    if (result.session.state === 'exited') return this.showOffer(exitedOffer(result.session));
    this.update({ phase: 'live', offer: null });
    if (result.read_only) return this.dropHeldKeys('read_only');
    // The attach may have gone out before this viewer was ever shown (a page opening its tabs):
    // the daemon learns its size now, for when a person uses it.
    this.viewerResized(true);
    if (this.takeSizeOnAttach) {
      this.takeSizeOnAttach = false;
      this.takeSize(true);
    }
    // Keys typed while the tab waited go now, once, in the order typed, before anything typed later.
    if (this.typeAhead.flush((data) => this.sendInput(data)) > 0) this.showPending();
  }

  onFrame(frame: BinaryFrame): void {
    if (frame.kind === FRAME_SNAPSHOT) {
      this.terminal.reset();
      this.stream.resetTerminal();
      this.pendingSizes = this.pendingSizes.filter((z) => z.offset > frame.offset);
      if (this.sessionSize) this.applySize(this.sessionSize.cols, this.sessionSize.rows);
      this.stream.snapshotAt(frame.offset);
      this.feed(frame.payload, frame.offset);
      return;
    }
    if (frame.kind !== FRAME_OUTPUT) return;
    const { data, effects } = this.stream.accept(frame.offset, frame.payload);
    this.run(effects);
    if (data === null || data.length === 0) return;
    this.feed(data, frame.offset);
  }

  /** The session's size changed from `event.offset` on: now if the output is there, else when it gets there. */
  sizeFrom(event: SessionResized): void {
    if (event.offset <= this.stream.state.received) return this.applySize(event.cols, event.rows);
    this.pendingSizes = [...this.pendingSizes.filter((z) => z.offset !== event.offset), event].sort((a, b) => a.offset - b.offset);
  }

  /**
   * This viewer's element changed size (or was measured for the first time): the daemon is told
   * (it applies it while this viewer holds the session's size), and the marker follows.
   */
  viewerResized(linkReady: boolean): void {
    const size = this.terminal.viewerSize();
    const sessionId = this.sessionId;
    if (size && linkReady && sessionId && this.view.phase === 'live' && !this.view.readOnly) {
      this.link.send({ type: 'pty_resize', session_id: sessionId, cols: size.cols, rows: size.rows });
    }
    this.refreshSizeMarker();
  }

  /** A person uses this viewer (pressed on it, or asked): the session takes its size. */
  takeSize(linkReady: boolean): void {
    const sessionId = this.sessionId;
    if (!linkReady || !sessionId || this.view.phase !== 'live' || this.view.readOnly) return;
    const size = this.terminal.viewerSize();
    if (size) this.link.send({ type: 'pty_resize', session_id: sessionId, cols: size.cols, rows: size.rows });
    this.link.send({ type: 'take_size', session_id: sessionId });
  }

  /** The daemon dropped this tab's attachment (any reason): resume from what we have, lossless. */
  onDesync(): void {
    this.run(this.stream.desync());
  }

  /** The page was hidden or shown: while hidden the attachment flows live (see OutputStream.pageHidden). */
  setPageHidden(hidden: boolean): void {
    this.run(this.stream.pageHidden(hidden));
  }

  /** The daemon refused to switch this attachment to lossless: it stays live. */
  onFlowRejected(): void {
    this.run(this.stream.flowRejected());
  }

  /** The connection went down: the daemon-side attachment is gone with it. */
  onLinkDown(): void {
    // What the daemon held for this connection still arrives, in order; it can no longer tell us.
    this.daemonWaitingKeys = 0;
    this.showPending();
    this.run(this.stream.linkDown());
    if (this.view.phase === 'live') this.update({ phase: 'reconnecting' });
  }

  /** The tab is closed: no timer of it may fire any more. */
  dispose(): void {
    this.cancelTimer('ack');
    this.cancelTimer('stall');
    this.titleSubscription.dispose();
    this.terminal.dispose();
  }

  /** The program ended (session_exited, or a list saying so). */
  onExited(exit: Pick<SessionInfo, 'exit_code' | 'exit_signal'>): void {
    const session = this.view.session ? { ...this.view.session, ...exit, state: 'exited' as const } : null;
    if (session) this.update({ session });
    this.showOffer(exitedOffer(session));
  }

  /** Where a re-attach continues: after the last byte handed to the terminal. */
  resumeOffset(): number | undefined {
    return this.stream.state.received >= 0 && this.hasContent ? this.stream.state.received : undefined;
  }

  update(patch: Partial<TabView>): void {
    this.view = { ...this.view, ...patch };
    this.link.changed();
  }

  /** Recomputes the tab's name (see tab-name.ts) after its session, title or label changed. */
  refreshName(): void {
    const session = this.view.session;
    const name = tabName({
      userNamed: this.record.userNamed, current: this.record.name, label: session?.label ?? null,
      command: session?.command ?? this.record.command, title: this.record.title,
      cwd: session?.last_cwd ?? session?.cwd ?? this.record.cwd,
    });
    if (name !== this.record.name) this.record = { ...this.record, name };
    if (name !== this.view.name) this.update({ name });
  }

  private onTitle(title: string): void {
    const clean = cleanTitle(title);
    if (clean === this.record.title) return;
    this.record = { ...this.record, title: clean };
    this.refreshName();
  }

  private inputTarget(): InputTarget {
    switch (this.view.phase) {
      case 'live':
        return 'live';
      case 'opening':
      case 'reconnecting':
        return 'waiting';
      default:
        return 'ended';
    }
  }

  private sendInput(data: string): boolean {
    const sessionId = this.sessionId;
    return sessionId !== null && this.link.sendInput(sessionId, data, false);
  }

  private showPending(): void {
    const pending = this.typeAhead.keys + this.daemonWaitingKeys;
    if (pending !== this.view.pendingKeys) this.update({ pendingKeys: pending });
  }

  private refuseKeys(keys: number, reason: KeysNotSentReason): void {
    this.terminal.bell();
    this.link.keysNotSent(this, keys, reason);
  }

  /** Held keys that can no longer be delivered: said out loud, never dropped silently. */
  private dropHeldKeys(reason: KeysNotSentReason): void {
    const keys = this.typeAhead.clear();
    if (keys === 0) return;
    this.showPending();
    this.refuseKeys(keys, reason);
  }

  /** Writes output ending at `endOffset`, cut where the session changed size so each part is taken in at its size. */
  private feed(data: Uint8Array, endOffset: number): void {
    this.hasContent = true;
    const start = endOffset - data.length;
    let from = 0;
    while (this.pendingSizes.length > 0 && this.pendingSizes[0]!.offset <= endOffset) {
      const z = this.pendingSizes.shift()!;
      const cut = Math.max(from, z.offset - start);
      this.write(data.subarray(from, cut), start + cut);
      from = cut;
      this.applySize(z.cols, z.rows);
    }
    this.write(data.subarray(from), endOffset);
  }

  private write(data: Uint8Array, endOffset: number): void {
    if (data.length === 0) return;
    const { ticket, effects } = this.stream.written(data.length, endOffset);
    this.terminal.write(data, () => {
      const after = this.stream.renderedUpTo(ticket);
      this.record = { ...this.record, renderedOffset: this.stream.state.rendered };
      this.run(after);
    });
    this.run(effects);
  }

  private applySize(cols: number, rows: number): void {
    if (!isSize(cols) || !isSize(rows)) return;
    this.terminal.resize(cols, rows);
    this.refreshSizeMarker();
  }

  private refreshSizeMarker(): void {
    const viewer = this.terminal.viewerSize();
    const { cols, rows } = this.terminal.size();
    const sizedFor = viewer && (viewer.cols !== cols || viewer.rows !== rows) && this.sessionId !== null ? { cols, rows } : null;
    if (sizedFor?.cols !== this.view.sizedFor?.cols || sizedFor?.rows !== this.view.sizedFor?.rows) this.update({ sizedFor });
  }

  private startTimer(kind: 'ack' | 'stall', ms: number, fired: () => FlowEffect[]): void {
    this.cancelTimer(kind);
    this.timers[kind] = this.clock.setTimeout(() => {
      this.timers[kind] = null;
      this.run(fired());
    }, ms);
  }

  private cancelTimer(kind: 'ack' | 'stall'): void {
    this.clock.clearTimeout(this.timers[kind]);
    this.timers[kind] = null;
  }

  /** Carries out the stream's decisions. */
  private run(effects: FlowEffect[]): void {
    for (const effect of effects) {
      const sessionId = this.sessionId;
      switch (effect.type) {
        case 'ack':
          if (sessionId) this.link.send({ type: 'pty_ack', session_id: sessionId, offset: effect.offset });
          break;
        case 'flow':
          if (sessionId) {
            this.link.send({
              type: 'pty_flow', session_id: sessionId, flow: effect.flow, ...(effect.window === undefined ? {} : { window: effect.window }),
            });
          }
          break;
        case 'start_ack_timer':
          this.startTimer('ack', effect.ms, () => this.stream.ackTimerFired());
          break;
        case 'cancel_ack_timer':
          this.cancelTimer('ack');
          break;
        case 'start_stall_timer':
          this.startTimer('stall', effect.ms, () => this.stream.stallTimerFired());
          break;
        case 'cancel_stall_timer':
          this.cancelTimer('stall');
          break;
        case 'detach':
          this.link.detach(this);
          break;
        case 'reattach':
          this.link.attach(this, this.resumeOffset());
          break;
      }
    }
  }
}

/** A terminal dimension the daemon may send (it takes 1–1000). */
function isSize(n: number | undefined): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 9999;
}
