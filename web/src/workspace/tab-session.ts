// One terminal tab bound to one daemon session: feeds the session's output into the terminal
// without gaps or duplicates, tracks the rendered offset in xterm's write callbacks, and applies
// flow control (detach above the high-water mark, re-attach with `since` once drained).
import { FRAME_OUTPUT, FRAME_SNAPSHOT, type BinaryFrame } from '../protocol/binary-frames';
import type { AttachResult, SessionInfo } from '../protocol/messages';
import { OutputStream, type FlowLimits } from '../sessions/output-stream';
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
  detach(tab: TabSession): void;
  changed(): void;
}

export class TabSession {
  readonly stream: OutputStream;
  view: TabView;
  /** Whether the terminal shows output that `stream.rendered` describes (restored or rendered). */
  hasContent = false;
  /** Set while an attach is in flight whose answer should reset the terminal first. */
  private resetOnAttach = false;

  constructor(
    public record: TabRecord,
    readonly terminal: TerminalPort,
    private readonly link: TabLink,
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
    this.stream.received = -1;
    this.stream.rendered = -1;
    this.hasContent = false;
    this.update({ sessionId: session.id, session, name: session.label || this.view.name });
  }

  /** Marks an attach as sent; without `since` the terminal is reset when the answer comes. */
  attaching(since: number | undefined): void {
    this.resetOnAttach = since === undefined;
    if (this.view.loadedOnce && this.view.phase !== 'exited') this.update({ phase: 'reconnecting' });
  }

  onAttachResult(result: AttachResult): void {
    if (this.resetOnAttach) {
      this.terminal.reset();
      this.stream.resetTerminal();
      this.stream.received = -1;
      this.resetOnAttach = false;
    }
    this.stream.beginReplay(result.replay_from);
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
    const fresh = this.stream.accept(frame.offset, frame.payload);
    if (fresh === null || fresh.length === 0) return;
    this.feed(fresh, frame.offset);
  }

  /** The daemon dropped this tab's attachment (slow consumer): resume from what we have. */
  onDesync(): void {
    if (!this.stream.paused) this.link.attach(this, this.resumeOffset());
  }

  /** The connection went down: the daemon-side attachment is gone with it. */
  onLinkDown(): void {
    this.stream.paused = false;
    this.stream.resetTerminal();
    if (this.view.phase === 'live') this.update({ phase: 'reconnecting' });
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
    const length = data.length;
    this.hasContent = true;
    const signal = this.stream.written(length);
    this.terminal.write(data, () => {
      const after = this.stream.renderedUpTo(endOffset, length);
      this.record = { ...this.record, renderedOffset: this.stream.rendered };
      if (after === 'resume') this.link.attach(this, this.resumeOffset());
    });
    if (signal === 'pause') this.link.detach(this);
  }
}
