// Terminal replies (docs/protocol.md, "Terminal replies"): answers to replayed queries are never
// sent; live answers go as replies; none is held while the link is down.
import { describe, expect, it } from 'vitest';
import { connectAndList, makeWorkspace, session } from './support/workspace-harness';

describe('Workspace: the terminal\'s answers to queries', () => {
  it('an answer produced while the replay is being written is dropped; once it is rendered answers go as replies', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0, { end_offset: 9 });
    h.daemon.output('s1', 9, 'q\x1b[c\x1b[6n');          // the replay: questions asked while nobody watched
    h.workspace.reply('tab1', '\x1b[?1;2c');             // xterm answers while parsing it
    expect(h.daemon.sent('pty_input')).toEqual([]);
    h.terminals.get('tab1')!.flush();                             // the replay is rendered
    h.daemon.output('s1', 12, '\x1b[c');                 // a live question
    h.workspace.reply('tab1', '\x1b[?1;2c');
    expect(h.daemon.sent('pty_input')).toEqual([{ type: 'pty_input', session_id: 's1', data: '\x1b[?1;2c', reply: true }]);
  });

  it('answers are never held while the link is down, unlike keys', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1')]);
    h.daemon.attached('s1', 0);
    h.network.last().drop();
    h.workspace.reply('tab1', '\x1b[?1;2c');
    h.workspace.input('tab1', 'x');
    expect(h.workspace.snapshot.tabs[0]).toMatchObject({ pendingKeys: 1 });
  });
});
