// Keys leave the page as binary pty_input frames only, and keys the daemon holds for a stuck
// session show as pending in the tab (docs/protocol.md, "Keys held by the daemon").
import { describe, expect, it } from 'vitest';
import { decodeFrame, FRAME_INPUT } from '../src/protocol/binary-frames';
import { connectAndList, makeWorkspace, session } from './support/workspace-harness';

describe('Workspace: keys on their way to a session', () => {
  it('keys and terminal replies go as binary pty_input frames (offset 0 and 1), never as text', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.workspace.input('tab1', 'é\r');
    h.daemon.output('s1', 3, '\x1b[c');
    h.terminals.get('tab1')!.flush();
    h.workspace.reply('tab1', '\x1b[?1;2c');
    const { frames, text } = h.daemon.keysAsFrames();
    expect(text).toEqual([]);
    expect(frames).toEqual([
      { type: 'pty_input', session_id: 's1', data: 'é\r' },
      { type: 'pty_input', session_id: 's1', data: '\x1b[?1;2c', reply: true },
    ]);
    const raw = h.network.last().sent.filter((d): d is Uint8Array => typeof d !== 'string').map((b) => decodeFrame(b)!);
    expect(raw.map((f) => [f.kind, f.offset, f.payload.length])).toEqual([[FRAME_INPUT, 0, 3], [FRAME_INPUT, 1, 7]]);
  });

  it('keys the daemon holds for a stuck session show as pending until it says they arrived', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1'), session('s2')]);
    h.daemon.attached('s1', 0);
    h.workspace.input('tab1', 'a');
    h.workspace.input('tab1', 'b');
    h.daemon.push({ type: 'input_waiting', session_id: 's1', keys: 2, bytes: 2 });
    expect(h.workspace.snapshot.tabs.find((t) => t.sessionId === 's1')).toMatchObject({ phase: 'live', pendingKeys: 2 });
    expect(h.workspace.snapshot.tabs.find((t) => t.sessionId === 's2')).toMatchObject({ pendingKeys: 0 });
    h.workspace.input('tab1', 'c'); // still sent at once: the daemon keeps them in order
    expect(h.daemon.sent('pty_input').map((c) => c.data)).toEqual(['a', 'b', 'c']);
    h.daemon.push({ type: 'input_waiting', session_id: 's1', keys: 0, bytes: 0 });
    expect(h.workspace.snapshot.tabs.find((t) => t.sessionId === 's1')).toMatchObject({ pendingKeys: 0 });
  });

  it('keys the daemon could not hold, or that never arrived, ring the bell and are owned up to', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.daemon.push({ type: 'input_waiting', session_id: 's1', keys: 3, bytes: 3 });
    h.daemon.error('pty_input', 's1', 'input_queue_full');
    h.daemon.push({ type: 'input_undelivered', session_id: 's1', keys: 3, bytes: 3, reason: 'session_ended' });
    expect(h.terminals.get('tab1')!.bells).toBe(2);
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ pendingKeys: 0 });
    expect(h.workspace.snapshot.toasts.map((t) => t.text)).toEqual([
      'Typing refused in “s1”: its program has taken no keys for a while and 256 KiB of them already wait for it.',
      '3 keys typed into “s1” never reached its program: it ended first.',
    ]);
  });
});
