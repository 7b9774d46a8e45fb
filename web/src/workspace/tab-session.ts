// One terminal tab bound to one daemon session: feeds the session's output into the terminal
// without gaps or duplicates, tracks the rendered offset in xterm's write callbacks, and carries out
// the flow decisions of its OutputStream (lossless with coalesced pty_ack, live via pty_flow while
// the backlog is high or the page hidden, re-attach with `since` after a desync). The decisions are
// the stream's; this class only runs their effects with the clock and the link.
import type { Clock, TimerHandle } from '../core/clock';
import { FRAME_OUTPUT, FRAME_SNAPSHOT, type BinaryFrame } from '../protocol/binary-frames';
import type { AttachResult, ClientCommand, SessionInfo } from '../protocol/messages';
import { OutputStream, type AttachFlow, type FlowEffect, type FlowLimits } from '../sessions/output-stream';
import type { TabRecord } from '../sessions/tab-record';
import type { TerminalPort } from './terminal-port';

export type TabPhase =
  | 'opening' // waiting for its first attach in this page (overlay spinner)
  | 'live' // attached, output flowing
  | 'reconnecting' // the link is down or a re-attach is in flight (overlay over the old screen)
  | 'exited' // the program ended
  | 'failed'; // could not be started or attached

export interface TabView {
  tabId: string;
  name: string;
  sessionId: string | null;
  session: SessionInfo | null;
  phase: TabPhase;
  /** Whether the first attach in this page has completed. */
  loadedOnce: boolean;
  readOnly: boolean;
  /** Shown above the terminal: why this tab holds a new session, or what failed. */
  notice: string | null;
}

export interface TabLink {
  attach(tab: TabSession, since: number | undefined): void;
  /** Detaches (the backlog passed the ceiling); the stream asks to re-attach once drained. */
  detach(tab: TabSession): void;
  /** Sends a command that has no reply (pty_ack, pty_flow); dropped when offline. */
  send(command: ClientCommand): void;
  changed(): void;
}

export class TabSession {
  readonly stream: OutputStream;
  view: TabView;
  /** Whether the terminal shows output that `stream.rendered` describes (restored or rendered). */
  hasContent = false;
  /** Set while an attach is in flight whose answer should reset the terminal first. */
  private resetOnAttach = false;
  private ackTimer: TimerHandle | null = null;

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
      phase: 'opening', loadedOnce: false, readOnly: false, notice: null,
    };
  }

  get sessionId(): string | null {
    return this.record.serverSessionId;
  }

  /** Writes a saved screen back after a reload; output then resumes from `offset`. */
  restore(screen: string, offset: number): void {
    this.terminal.write(screen);
    this.stream.resumeAt(offset);
    this.hasContent = true;
  }

  /** Binds the tab to a (new) session; the old screen is kept until the attach answers. */
  bindSession(session: SessionInfo, daemonInstanceId: string): void {
    this.record = {
      ...this.record, serverSessionId: session.id, daemonInstanceId, renderedOffset: -1,
      command: session.command, cwd: session.cwd, name: session.label || this.record.name,
    };
    this.run(this.stream.forget());
    this.hasContent = false;
    this.update({ sessionId: session.id, session, name: session.label || this.view.name });
  }

  /**
   * Marks an attach as sent; without `since` the terminal is reset when the answer comes. Returns
   * the flow fields the attach asks for (lossless).
   */
  attaching(since: number | undefined): AttachFlow {
    this.resetOnAttach = since === undefined;
    this.run(this.stream.attachRequested());
    if (this.view.loadedOnce && this.view.phase !== 'exited') this.update({ phase: 'reconnecting' });
    return this.stream.attachFlow();
  }

  onAttachResult(result: AttachResult): void {
    if (this.resetOnAttach) {
      this.terminal.reset();
      this.stream.resetTerminal();
      this.stream.received = -1;
      this.resetOnAttach = false;
    }
    this.run(this.stream.attached(result));
    const exited = result.session.state === 'exited';
    this.update({ phase: exited ? 'exited' : 'live', loadedOnce: true, readOnly: result.read_only, session: result.session });
  }

  onFrame(frame: BinaryFrame): void {
    if (frame.kind === FRAME_SNAPSHOT) {
      this.terminal.reset();
      this.stream.resetTerminal();
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
    this.run(this.stream.linkDown());
    if (this.view.phase === 'live') this.update({ phase: 'reconnecting' });
  }

  /** The tab is closed: no timer of it may fire any more. */
  dispose(): void {
    this.clock.clearTimeout(this.ackTimer);
    this.ackTimer = null;
    this.terminal.dispose();
  }

  onExited(): void {
    this.update({ phase: 'exited' });
  }

  /** Where a re-attach continues: after the last byte handed to the terminal. */
  resumeOffset(): number | undefined {
    return this.stream.received >= 0 && this.hasContent ? this.stream.received : undefined;
  }

  update(patch: Partial<TabView>): void {
    this.view = { ...this.view, ...patch };
    this.link.changed();
  }

  private feed(data: Uint8Array, endOffset: number): void {
    this.hasContent = true;
    const { ticket, effects } = this.stream.written(data.length, endOffset);
    this.terminal.write(data, () => {
      const after = this.stream.renderedUpTo(ticket);
      this.record = { ...this.record, renderedOffset: this.stream.rendered };
      this.run(after);
    });
    this.run(effects);
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
          this.clock.clearTimeout(this.ackTimer);
          this.ackTimer = this.clock.setTimeout(() => {
            this.ackTimer = null;
            this.run(this.stream.ackTimerFired());
          }, effect.ms);
          break;
        case 'cancel_ack_timer':
          this.clock.clearTimeout(this.ackTimer);
          this.ackTimer = null;
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
