import { describe, expect, it } from 'vitest';
import { OutputStream, type FlowEffect, type FlowLimits, type WriteTicket } from '../src/sessions/output-stream';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | null) => (data === null ? null : new TextDecoder().decode(data));
const KiB = 1024;
const MiB = 1024 * KiB;

const acks = (effects: FlowEffect[]) => effects.filter((e) => e.type === 'ack').map((e) => (e as { offset: number }).offset);
const flows = (effects: FlowEffect[]) => effects.filter((e) => e.type === 'flow').map((e) => (e as { flow: string }).flow);
const has = (effects: FlowEffect[], type: FlowEffect['type']) => effects.some((e) => e.type === type);

/**
 * Drives an OutputStream the way a tab does: `receive` takes a chunk of `n` bytes (accept + write),
 * `render` runs the oldest pending write callback. Every effect is recorded in `log`.
 */
function harness(limits: FlowLimits = { highWater: 2 * MiB, lowWater: 256 * KiB }) {
  const stream = new OutputStream(limits);
  const tickets: WriteTicket[] = [];
  const log: FlowEffect[] = [];
  const record = (effects: FlowEffect[]) => {
    log.push(...effects);
    return effects;
  };
  return {
    stream,
    log,
    tickets,
    attach(replayFrom: number, grant: { flow?: 'live' | 'lossless'; window?: number | null } = { flow: 'lossless', window: 4 * MiB }) {
      record(stream.attachRequested());
      return record(stream.attached({ replay_from: replayFrom, ...grant }));
    },
    /** A chunk of `n` bytes ending at `end` arrives and is handed to the terminal. */
    receive(end: number, n: number) {
      const { data, effects } = stream.accept(end, new Uint8Array(n));
      record(effects);
      if (data === null || data.length === 0) return effects;
      const written = stream.written(data.length, end);
      tickets.push(written.ticket);
      return [...effects, ...record(written.effects)];
    },
    /** xterm's write callback runs for the oldest write. */
    render() {
      const ticket = tickets.shift();
      if (!ticket) throw new Error('nothing to render');
      return record(stream.renderedUpTo(ticket));
    },
    renderAll() {
      const out: FlowEffect[] = [];
      while (tickets.length > 0) out.push(...this.render());
      return out;
    },
    timer() {
      return record(stream.ackTimerFired());
    },
    /** The stall timer fires. */
    stall() {
      return record(stream.stallTimerFired());
    },
    /** The page is hidden (true) or shown again (false). */
    page(hidden: boolean) {
      return record(stream.pageHidden(hidden));
    },
  };
}

describe('OutputStream: offsets', () => {
  it('shows its state read-only and starts over only through its own method', () => {
    const stream = new OutputStream();
    stream.accept(10, bytes('0123456789'));
    expect(stream.state.received).toBe(10);
    // Never run: the typecheck in `npm test` fails if outside code could write the state.
    const writeFromOutside = () => {
      // @ts-expect-error the state is read-only from outside
      stream.state.received = 5;
    };
    void writeFromOutside;
    stream.startOver();
    expect(stream.state).toMatchObject({ received: -1, rendered: -1, pending: 0 });
  });

  it('passes contiguous chunks through and tracks received and rendered offsets separately', () => {
    const stream = new OutputStream();
    stream.attached({ replay_from: 0 });
    expect(text(stream.accept(5, bytes('hello')).data)).toBe('hello');
    expect(text(stream.accept(11, bytes(' world')).data)).toBe(' world');
    expect(stream.state.received).toBe(11);
    expect(stream.state.rendered).toBe(-1);
    const first = stream.written(5, 5).ticket;
    const second = stream.written(6, 11).ticket;
    stream.renderedUpTo(first);
    expect(stream.state.rendered).toBe(5);
    stream.renderedUpTo(second);
    expect(stream.state).toMatchObject({ rendered: 11, pending: 0 });
  });

  it('drops bytes it already has, so a replay after a reconnect duplicates nothing', () => {
    const stream = new OutputStream();
    stream.resumeAt(10);
    stream.attached({ replay_from: 10 });
    expect(stream.accept(10, bytes('0123456789')).data).toBeNull();
    expect(text(stream.accept(14, bytes('6789abcd')).data)).toBe('abcd');
    expect(stream.state.duplicateBytes).toBe(14);
    expect(stream.state.received).toBe(14);
  });

  it('counts a gap when the replay starts after what the terminal has (ring moved on)', () => {
    const stream = new OutputStream();
    stream.resumeAt(100);
    stream.attached({ replay_from: 400 });
    expect(stream.state.gaps).toBe(1);
    expect(text(stream.accept(403, bytes('abc')).data)).toBe('abc');
  });

  it('a snapshot sets the position the following replay continues from', () => {
    const stream = new OutputStream();
    stream.attached({ replay_from: 1000 });
    stream.snapshotAt(1500);
    expect(stream.accept(1500, bytes('old')).data).toBeNull();
    expect(text(stream.accept(1502, bytes('new')).data)).toBe('ew');
  });

  it('resetting the terminal clears the backlog and ignores write callbacks from before the reset', () => {
    const stream = new OutputStream();
    stream.attached({ replay_from: 0 });
    stream.accept(500, new Uint8Array(500));
    const old = stream.written(500, 500).ticket;
    stream.resetTerminal();
    expect(stream.state).toMatchObject({ pending: 0, rendered: -1 });
    stream.snapshotAt(300);
    const snapshot = stream.written(40, 300).ticket;
    stream.renderedUpTo(old);
    expect(stream.state).toMatchObject({ pending: 40, rendered: -1 });
    stream.renderedUpTo(snapshot);
    expect(stream.state).toMatchObject({ pending: 0, rendered: 300 });
  });
});

describe('OutputStream: lossless acknowledgements', () => {
  it('every attach asks for lossless, with the configured window raised to the 65536-byte minimum', () => {
    expect(new OutputStream().attachFlow()).toEqual({ flow: 'lossless' });
    expect(new OutputStream({ highWater: 100, lowWater: 10, window: 1 * MiB }).attachFlow()).toEqual({ flow: 'lossless', window: MiB });
    expect(new OutputStream({ highWater: 100, lowWater: 10, window: 1000 }).attachFlow()).toEqual({ flow: 'lossless', window: 65536 });
  });

  it('acknowledges a rendered chunk once rendering has caught up with everything received', () => {
    const h = harness();
    h.attach(0);
    h.receive(100, 100);
    expect(acks(h.render())).toEqual([100]);
    expect(h.stream.state.acked).toBe(100);
  });

  it('coalesces: under 64 KiB rendered and not caught up, it arms the ack timer instead of acking', () => {
    const h = harness();
    h.attach(0);
    h.receive(10 * KiB, 10 * KiB);
    h.receive(20 * KiB, 10 * KiB);
    const effects = h.render();
    expect(acks(effects)).toEqual([]);
    expect(effects).toContainEqual({ type: 'start_ack_timer', ms: 50 });
    expect(h.stream.state.ackTimerArmed).toBe(true);
    h.receive(30 * KiB, 10 * KiB);
    expect(has(h.render(), 'start_ack_timer')).toBe(false); // one timer at a time
    expect(acks(h.timer())).toEqual([20 * KiB]);
  });

  it('acknowledges at once when 64 KiB were rendered since the last ack, caught up or not', () => {
    const h = harness();
    h.attach(0);
    for (let i = 1; i <= 8; i++) h.receive(i * 16 * KiB, 16 * KiB);
    expect(acks(h.render())).toEqual([]);
    expect(acks(h.render())).toEqual([]);
    expect(acks(h.render())).toEqual([]);
    const fourth = h.render();
    expect(acks(fourth)).toEqual([64 * KiB]);
    expect(fourth).toContainEqual({ type: 'cancel_ack_timer' });
    expect(acks(h.render())).toEqual([]);
  });

  it('the ack timer acknowledges what was rendered since the last ack, and nothing when nothing new was', () => {
    const h = harness();
    h.attach(0);
    h.receive(100, 100);
    h.receive(200, 100);
    h.render();
    expect(acks(h.timer())).toEqual([100]);
    expect(acks(h.timer())).toEqual([]);
  });

  it('sends at most one ack per rendered chunk', () => {
    const h = harness({ highWater: 2 * MiB, lowWater: 256 * KiB, ackBytes: 10 });
    h.attach(0);
    for (let i = 1; i <= 20; i++) h.receive(i * 50, 50);
    for (let i = 0; i < 20; i++) expect(acks(h.render()).length).toBeLessThanOrEqual(1);
    expect(acks(h.log)).toHaveLength(20);
  });

  it('acks never go backwards, also when callbacks come back out of order', () => {
    const h = harness({ highWater: 2 * MiB, lowWater: 256 * KiB, ackBytes: 1 });
    h.attach(0);
    h.receive(100, 100);
    h.receive(200, 100);
    const [first, second] = h.tickets.splice(0, 2);
    expect(acks(h.stream.renderedUpTo(second!))).toEqual([200]);
    expect(acks(h.stream.renderedUpTo(first!))).toEqual([]);
    expect(acks(h.stream.ackTimerFired())).toEqual([]);
    expect(h.stream.state.acked).toBe(200);
  });

  it('acks never go backwards while the terminal is redrawn from a snapshot (nothing rendered yet)', () => {
    const h = harness();
    h.attach(0);
    h.receive(100, 100);
    expect(acks(h.render())).toEqual([100]);
    h.stream.resetTerminal();
    h.stream.snapshotAt(100);
    h.tickets.push(h.stream.written(30, 100).ticket);
    expect(acks(h.receive(100, 50))).toEqual([]); // a duplicate while the snapshot is still parsing
    expect(acks(h.timer())).toEqual([]);
    expect(acks(h.render())).toEqual([]); // the snapshot rendered: 100 is acknowledged already
    expect(h.stream.state.acked).toBe(100);
  });

  it('never acknowledges beyond what the attachment sent, even when the terminal shows more', () => {
    // A restored screen at 500, but the daemon (its stream reset) replays from its ring start.
    const h = harness();
    h.stream.resumeAt(500);
    h.attach(0);
    expect(acks(h.timer())).toEqual([]);
    expect(h.receive(120, 120)).toEqual([{ type: 'ack', offset: 120 }]); // duplicates, already rendered
    expect(acks(h.receive(300, 180))).toEqual([300]);
    expect(h.log.filter((e) => e.type === 'ack').every((e) => (e as { offset: number }).offset <= 300)).toBe(true);
  });

  it('counts from replay_from: what was rendered before the attach is not acknowledged', () => {
    const h = harness();
    h.stream.resumeAt(100);
    expect(acks(h.attach(100))).toEqual([]);
    expect(h.stream.state.acked).toBe(100);
    h.receive(150, 50);
    expect(acks(h.render())).toEqual([150]);
  });

  it('sends no ack while the attach is unanswered or after the attachment was dropped', () => {
    const h = harness();
    h.attach(0);
    h.receive(100, 100);
    h.receive(200, 100);
    h.render(); // arms the timer
    const desync = h.stream.desync();
    expect(desync).toEqual([{ type: 'cancel_ack_timer' }, { type: 'reattach' }]);
    expect(acks(h.render())).toEqual([]);
    expect(acks(h.timer())).toEqual([]);
    h.stream.attachRequested();
    expect(acks(h.stream.ackTimerFired())).toEqual([]);
  });

  it('caps the ack delay at 100 ms', () => {
    const h = harness({ highWater: 2 * MiB, lowWater: 256 * KiB, ackDelayMs: 5000 });
    h.attach(0);
    h.receive(10, 10);
    h.receive(20, 10);
    expect(h.render()).toContainEqual({ type: 'start_ack_timer', ms: 100 });
  });
});

describe('OutputStream: live and lossless switching', () => {
  const limits: FlowLimits = { highWater: 1000, lowWater: 100 };

  it('sends no ack and no pty_flow when the daemon granted live, whatever the backlog', () => {
    const h = harness(limits);
    expect(h.attach(0, { flow: 'live', window: null })).toEqual([]);
    expect(h.stream.state.flow).toBe('live');
    for (let i = 1; i <= 3; i++) h.receive(i * 600, 600);
    h.renderAll();
    h.timer();
    expect(acks(h.log)).toEqual([]);
    expect(flows(h.log)).toEqual([]);
  });

  it('a daemon that predates lossless (no flow in attach_result) is treated as live', () => {
    const h = harness(limits);
    h.attach(0, {});
    h.receive(10, 10);
    expect(acks(h.render())).toEqual([]);
    expect(h.stream.state.granted).toBe('live');
  });

  it('switches to live when a backlog above the high-water mark renders nothing for the stall time, acks nothing while live, and back to lossless below the low-water mark with an ack', () => {
    const h = harness(limits);
    h.attach(0);
    expect(h.receive(600, 600)).toEqual([]);
    expect(h.receive(1200, 600)).toEqual([{ type: 'start_stall_timer', ms: 1000 }]);
    expect(h.stream.state.flow).toBe('lossless');
    expect(h.stall()).toEqual([{ type: 'flow', flow: 'live' }]); // nothing rendered since the timer started
    expect(h.stream.state.flow).toBe('live');
    expect(flows(h.receive(1800, 600))).toEqual([]); // once
    expect(h.render()).toEqual([]); // backlog 1200: still live, no ack
    expect(h.render()).toEqual([]); // backlog 600
    const back = h.render(); // backlog 0
    expect(back).toEqual([{ type: 'flow', flow: 'lossless' }, { type: 'ack', offset: 1800 }]);
    expect(h.stream.state.flow).toBe('lossless');
    expect(acks(h.log)).toEqual([1800]);
  });

  it('switching back to lossless repeats the configured window', () => {
    const h = harness({ ...limits, window: 1 * MiB });
    h.attach(0, { flow: 'lossless', window: MiB });
    h.receive(1500, 1500);
    expect(flows(h.stall())).toEqual(['live']);
    expect(h.render()[0]).toEqual({ type: 'flow', flow: 'lossless', window: MiB });
  });

  it('the high-water mark is at most half the granted window, so a stalled tab cannot pace the session', () => {
    const h = harness({ highWater: 2 * MiB, lowWater: 256 * KiB });
    h.attach(0, { flow: 'lossless', window: 960 * KiB });
    expect(h.stream.highWater).toBe(480 * KiB);
    expect(h.stream.lowWater).toBe(240 * KiB);
    expect(h.receive(400 * KiB, 400 * KiB)).toEqual([]);
    expect(h.receive(500 * KiB, 100 * KiB)).toEqual([{ type: 'start_stall_timer', ms: 1000 }]);
    expect(flows(h.stall())).toEqual(['live']);
  });

  it('a backlog still above the high-water mark when the attach is answered arms the stall timer, and goes live if nothing renders for the stall time', () => {
    const h = harness(limits);
    h.attach(0);
    h.receive(1500, 1500);
    h.stall(); // live
    h.stream.linkDown();
    expect(h.attach(1500)).toEqual([{ type: 'start_stall_timer', ms: 1000 }]);
    expect(h.stream.state.flow).toBe('lossless');
    expect(h.stall()).toEqual([{ type: 'flow', flow: 'live' }]);
    expect(h.stream.state.flow).toBe('live');
  });

  it('detaches above the ceiling and re-attaches once drained below the low-water mark, ignoring a desync meanwhile', () => {
    const h = harness({ ...limits, ceiling: 3000 });
    h.attach(0);
    h.receive(1500, 1500);
    h.stall(); // live
    h.receive(3000, 1500);
    expect(has(h.log, 'detach')).toBe(false);
    const over = h.receive(3500, 500);
    expect(over).toEqual([{ type: 'detach' }]);
    expect(h.stream.state.attachment).toBe('parked');
    expect(h.stream.desync()).toEqual([]);
    expect(h.render()).toEqual([]);
    expect(h.render()).toEqual([]);
    expect(h.render()).toEqual([{ type: 'reattach' }]);
    expect(acks(h.log)).toEqual([]);
  });

  it('detaches above the ceiling on a live-granted attachment too (the terminal buffer is bounded)', () => {
    const h = harness({ ...limits, ceiling: 2000 });
    h.attach(0, { flow: 'live', window: null });
    h.receive(1500, 1500);
    expect(h.receive(2500, 1000)).toEqual([{ type: 'detach' }]);
  });

  it('a refused pty_flow lossless (invalid_flow) leaves the attachment live with no acks', () => {
    const h = harness(limits);
    h.attach(0);
    h.receive(1500, 1500);
    h.stall(); // live
    h.render(); // back to lossless
    expect(flows(h.log)).toEqual(['live', 'lossless']);
    h.stream.flowRejected();
    h.receive(1600, 100);
    h.render();
    h.timer();
    expect(h.stream.state.flow).toBe('live');
    expect(acks(h.log)).toEqual([1500]);
  });
});

describe('OutputStream: the stall timer', () => {
  const limits: FlowLimits = { highWater: 1000, lowWater: 100 };

  it('a visible tab above the high-water mark that keeps rendering stays lossless: each stall-timer firing re-arms it, and acks keep going', () => {
    const h = harness({ ...limits, ackBytes: 100, stallMs: 250 });
    h.attach(0);
    h.receive(600, 600);
    expect(h.receive(1200, 600)).toEqual([{ type: 'start_stall_timer', ms: 250 }]);
    for (let end = 1800; end <= 3000; end += 600) {
      // While the timer runs the daemon sends a chunk and the terminal renders one: the backlog stays at 1200.
      expect(h.receive(end, 600)).toEqual([]); // one timer at a time
      expect(acks(h.render())).toEqual([end - 1200]);
      expect(h.stream.state.pending).toBe(1200);
      expect(h.stall()).toEqual([{ type: 'start_stall_timer', ms: 250 }]);
      expect(h.stream.state).toMatchObject({ flow: 'lossless', stallTimerArmed: true, renderedAtStallCheck: end - 1200 });
    }
    expect(acks(h.renderAll())).toEqual([2400, 3000]);
    expect(h.stall()).toEqual([]); // drained below the mark: not re-armed
    expect(h.stream.state.stallTimerArmed).toBe(false);
    expect(flows(h.log)).toEqual([]);
    expect(acks(h.log)).toEqual([600, 1200, 1800, 2400, 3000]);
  });

  it('a visible tab above the high-water mark with nothing rendered for one stall period goes live once, acks nothing while live, and resumes lossless with an ack below the low-water mark', () => {
    const h = harness(limits);
    h.attach(0);
    h.receive(400, 400);
    h.receive(800, 400);
    expect(h.receive(1200, 400)).toEqual([{ type: 'start_stall_timer', ms: 1000 }]);
    h.receive(1600, 400);
    expect(h.render()).toEqual([{ type: 'start_ack_timer', ms: 50 }]); // rendered 400, backlog 1200
    expect(h.stall()).toEqual([{ type: 'start_stall_timer', ms: 1000 }]); // it rendered: another period
    h.receive(2000, 400); // backlog 1600, and the terminal renders nothing for a whole period
    expect(h.stall()).toEqual([{ type: 'cancel_ack_timer' }, { type: 'flow', flow: 'live' }]);
    expect(h.stream.state).toMatchObject({ flow: 'live', stallTimerArmed: false });
    expect(h.stall()).toEqual([]); // a late firing: already live
    expect(h.timer()).toEqual([]);
    expect(h.receive(2400, 400)).toEqual([]);
    for (let i = 0; i < 4; i++) expect(h.render()).toEqual([]); // backlog 1600, 1200, 800, 400: live, no ack
    expect(h.render()).toEqual([{ type: 'flow', flow: 'lossless' }, { type: 'ack', offset: 2400 }]);
    expect(flows(h.log)).toEqual(['live', 'lossless']);
    expect(acks(h.log)).toEqual([2400]);
  });

  it('a desync, a lost connection, a re-attach or another session in the tab cancels an armed stall timer, and a late firing does nothing', () => {
    const cases: [string, (stream: OutputStream) => FlowEffect[], FlowEffect[]][] = [
      ['desync', (stream) => stream.desync(), [{ type: 'cancel_stall_timer' }, { type: 'reattach' }]],
      ['link down', (stream) => stream.linkDown(), [{ type: 'cancel_stall_timer' }]],
      ['re-attach', (stream) => stream.attachRequested(), [{ type: 'cancel_stall_timer' }]],
      ['forget', (stream) => stream.forget(), [{ type: 'cancel_stall_timer' }]],
    ];
    for (const [what, event, expected] of cases) {
      const h = harness(limits);
      h.attach(0);
      h.receive(1500, 1500);
      expect(h.stream.state.stallTimerArmed, what).toBe(true);
      expect(event(h.stream), what).toEqual(expected);
      expect(h.stream.state.stallTimerArmed, what).toBe(false);
      expect(h.stall(), what).toEqual([]);
      expect(flows(h.log), what).toEqual([]);
    }
  });

  it('an answered re-attach replaces the stall timer of the attachment before it: no second timer, and the old one is cancelled first', () => {
    const h = harness(limits);
    h.attach(0);
    h.receive(1500, 1500);
    const before = h.log.length;
    h.attach(1500); // attach_session sent, then answered: the backlog is still above the mark
    expect(h.log.slice(before)).toEqual([{ type: 'cancel_stall_timer' }, { type: 'start_stall_timer', ms: 1000 }]);
    expect(h.stream.state.stallTimerArmed).toBe(true);
  });

  it('hiding the page while the stall timer runs goes live at once and cancels the timer', () => {
    const h = harness(limits);
    h.attach(0);
    expect(has(h.receive(1500, 1500), 'start_stall_timer')).toBe(true);
    expect(h.page(true)).toEqual([{ type: 'cancel_stall_timer' }, { type: 'flow', flow: 'live' }]);
    expect(h.stall()).toEqual([]);
    expect(flows(h.log)).toEqual(['live']);
  });

  it('an attach answered while the page is hidden goes live at once with a backlog above the high-water mark too: no stall timer', () => {
    const h = harness(limits);
    h.attach(0);
    h.receive(1500, 1500);
    h.stream.linkDown();
    expect(h.page(true)).toEqual([]);
    expect(h.attach(1500)).toEqual([{ type: 'flow', flow: 'live' }]);
    expect(h.receive(1600, 100)).toEqual([]);
    expect(h.stream.state.stallTimerArmed).toBe(false);
  });
});

describe('OutputStream: desync and reconnect', () => {
  const limits: FlowLimits = { highWater: 1000, lowWater: 100 };

  it('a desync of any reason re-attaches; the new attachment is lossless and acks restart at its replay_from', () => {
    for (const reason of ['slow_consumer', 'output_lost', 'ack_timeout']) {
      const h = harness(limits);
      h.attach(0);
      h.receive(1500, 1500);
      h.stall(); // live
      expect(h.stream.desync()).toEqual([{ type: 'reattach' }]);
      expect(h.stream.attachFlow().flow).toBe('lossless');
      h.attach(1500);
      h.stall(); // backlog 1500 still above high water, nothing rendered
      expect(h.stream.state).toMatchObject({ flow: 'live', acked: 1500 });
      h.render();
      expect(h.stream.state.flow).toBe('lossless');
      h.receive(1600, 100);
      expect(acks(h.render()), reason).toEqual([1600]);
    }
  });

  it('after a connection loss, the re-attach asks lossless again, the old live switch is forgotten and acks restart', () => {
    const h = harness(limits);
    h.attach(0);
    h.receive(50, 50);
    h.receive(100, 50);
    h.render(); // timer armed
    expect(h.stream.linkDown()).toEqual([{ type: 'cancel_ack_timer' }]);
    expect(h.stream.state).toMatchObject({ attachment: 'none', flow: 'live' });
    expect(acks(h.render())).toEqual([]); // rendered 100, but no attachment to ack to
    expect(h.stream.attachFlow()).toEqual({ flow: 'lossless' });
    h.attach(100);
    expect(h.stream.state).toMatchObject({ attachment: 'attached', flow: 'lossless', acked: 100, sentHigh: 100 });
    h.receive(130, 30);
    expect(acks(h.render())).toEqual([130]);
  });

  it('a re-attach that replays from before the last ack (a restarted stream) acks again from its own replay_from, never past what it sent', () => {
    const h = harness(limits);
    h.attach(0);
    h.receive(500, 500);
    expect(acks(h.render())).toEqual([500]);
    h.stream.linkDown();
    h.attach(0); // `since: 500` was ahead of the daemon's stream: it replays from the start
    expect(h.stream.state).toMatchObject({ acked: 0, sentHigh: 0 });
    expect(acks(h.receive(120, 120))).toEqual([120]); // duplicates of what is rendered: the window must move
    expect(acks(h.receive(600, 480))).toEqual([]); // 100 new bytes, not rendered yet
    expect(acks(h.render())).toEqual([600]);
  });

  it('forgetting the stream (the tab holds another session) drops every offset and pending write', () => {
    const h = harness(limits);
    h.attach(0);
    h.receive(100, 100);
    h.stream.forget();
    expect(h.stream.state).toMatchObject({ received: -1, rendered: -1, pending: 0, attachment: 'none', acked: -1 });
    expect(h.render()).toEqual([]);
    expect(h.stream.state.rendered).toBe(-1);
  });
});

describe('OutputStream: page visibility', () => {
  const limits: FlowLimits = { highWater: 1000, lowWater: 100 };

  it('hiding the page switches a lossless attachment to live once, cancels the ack timer and sends no ack while hidden', () => {
    const h = harness(limits);
    h.attach(0);
    h.receive(10, 10);
    h.receive(20, 10);
    h.render(); // 10 rendered, not caught up: the ack timer is armed
    expect(h.stream.state.ackTimerArmed).toBe(true);
    expect(h.page(true)).toEqual([{ type: 'cancel_ack_timer' }, { type: 'flow', flow: 'live' }]);
    expect(h.stream.state.flow).toBe('live');
    expect(h.page(true)).toEqual([]); // once
    h.render();
    h.receive(30, 10);
    h.render();
    h.timer();
    expect(acks(h.log)).toEqual([]);
    expect(flows(h.log)).toEqual(['live']);
  });

  it('showing the page again switches back to lossless with the configured window and acknowledges what was rendered', () => {
    const h = harness({ ...limits, window: MiB });
    h.attach(0, { flow: 'lossless', window: MiB });
    h.page(true);
    h.receive(50, 50);
    expect(h.render()).toEqual([]); // hidden: drained, but still live and no ack
    expect(h.page(false)).toEqual([{ type: 'flow', flow: 'lossless', window: MiB }, { type: 'ack', offset: 50 }]);
    expect(h.stream.state.flow).toBe('lossless');
    expect(h.page(false)).toEqual([]);
    h.receive(80, 30);
    expect(acks(h.render())).toEqual([80]);
  });

  it('showing the page with nothing rendered since the last ack switches back to lossless without an ack', () => {
    const h = harness(limits);
    h.attach(0);
    h.receive(50, 50);
    expect(acks(h.render())).toEqual([50]);
    h.page(true);
    expect(h.page(false)).toEqual([{ type: 'flow', flow: 'lossless' }]);
  });

  it('showing the page while the backlog is above the low-water mark stays live until it drains below it', () => {
    const h = harness(limits);
    h.attach(0);
    h.page(true);
    h.receive(300, 300);
    h.receive(600, 300);
    h.receive(900, 300); // backlog 900: under the high-water mark, but above the low one
    expect(h.page(false)).toEqual([]);
    expect(h.stream.state.flow).toBe('live');
    expect(h.render()).toEqual([]); // backlog 600
    expect(h.render()).toEqual([]); // backlog 300
    expect(h.render()).toEqual([{ type: 'flow', flow: 'lossless' }, { type: 'ack', offset: 900 }]);
    expect(flows(h.log)).toEqual(['live', 'lossless']);
  });

  it('a backlog that drains while the page is hidden does not switch back to lossless until the page is shown', () => {
    const h = harness(limits);
    h.attach(0);
    h.receive(1500, 1500);
    expect(flows(h.stall())).toEqual(['live']);
    expect(h.page(true)).toEqual([]); // already live
    expect(h.render()).toEqual([]); // drained, but hidden
    expect(h.stream.state.flow).toBe('live');
    expect(h.page(false)).toEqual([{ type: 'flow', flow: 'lossless' }, { type: 'ack', offset: 1500 }]);
  });

  it('after the page was hidden and shown again, a backlog above the high-water mark arms the stall timer and goes live once nothing renders for the stall time', () => {
    const h = harness(limits);
    h.attach(0);
    h.page(true);
    h.page(false);
    expect(h.receive(1200, 1200)).toEqual([{ type: 'start_stall_timer', ms: 1000 }]);
    expect(h.stall()).toEqual([{ type: 'flow', flow: 'live' }]);
  });

  it('an attach answered while the page is hidden asks lossless and goes live at once', () => {
    const h = harness(limits);
    expect(h.page(true)).toEqual([]); // nothing attached: only the state is kept
    expect(h.stream.attachFlow()).toEqual({ flow: 'lossless' });
    expect(h.attach(0)).toEqual([{ type: 'flow', flow: 'live' }]);
    expect(h.stream.state).toMatchObject({ granted: 'lossless', flow: 'live' });
    h.receive(40, 40);
    h.render();
    h.timer();
    expect(acks(h.log)).toEqual([]);
    expect(h.page(false)).toEqual([{ type: 'flow', flow: 'lossless' }, { type: 'ack', offset: 40 }]);
  });

  it('a page hidden or shown while the attach is in flight: the answer applies the state at that time', () => {
    const h = harness(limits);
    h.stream.attachRequested();
    expect(h.page(true)).toEqual([]);
    expect(h.stream.attached({ replay_from: 0, flow: 'lossless', window: 4 * MiB })).toEqual([{ type: 'flow', flow: 'live' }]);

    const shown = harness(limits);
    shown.page(true);
    shown.stream.attachRequested();
    expect(shown.page(false)).toEqual([]);
    expect(shown.stream.attached({ replay_from: 0, flow: 'lossless', window: 4 * MiB })).toEqual([]);
    expect(shown.stream.state.flow).toBe('lossless');
  });

  it('re-attaches after a desync or a lost connection while hidden go live as soon as they are answered', () => {
    const h = harness(limits);
    h.attach(0);
    h.page(true);
    expect(h.stream.desync()).toEqual([{ type: 'reattach' }]);
    expect(h.stream.attachFlow().flow).toBe('lossless');
    expect(flows(h.attach(0))).toEqual(['live']);
    h.stream.linkDown();
    expect(flows(h.attach(0))).toEqual(['live']);
    h.stream.forget(); // another session in the tab: the page is still hidden
    expect(flows(h.attach(0))).toEqual(['live']);
  });

  it('a parked tab (detached above the ceiling) re-attaches live while the page is hidden', () => {
    const h = harness({ ...limits, ceiling: 3000 });
    h.attach(0);
    h.receive(3500, 3500);
    expect(h.stream.state.attachment).toBe('parked');
    expect(h.page(true)).toEqual([]);
    expect(h.render()).toEqual([{ type: 'reattach' }]);
    expect(flows(h.attach(3500))).toEqual(['live']);
  });

  it('an attachment the daemon granted live sends nothing when the page is hidden or shown', () => {
    const h = harness(limits);
    h.attach(0, { flow: 'live', window: null });
    expect(h.page(true)).toEqual([]);
    h.receive(50, 50);
    h.render();
    expect(h.page(false)).toEqual([]);
    h.receive(90, 40);
    h.render();
    h.timer();
    expect(acks(h.log)).toEqual([]);
    expect(flows(h.log)).toEqual([]);
  });

  it('after a refused pty_flow lossless (invalid_flow) the page hidden or shown sends nothing', () => {
    const h = harness(limits);
    h.attach(0);
    h.page(true);
    h.receive(50, 50);
    h.render();
    h.page(false); // asks lossless and acks 50
    h.stream.flowRejected();
    expect(h.page(true)).toEqual([]);
    expect(h.page(false)).toEqual([]);
    expect(flows(h.log)).toEqual(['live', 'lossless']);
    expect(acks(h.log)).toEqual([50]);
  });
});
