import { describe, expect, it } from 'vitest';
import { attentionView, pageTitle } from '../src/workspace/attention-view';
import { Cockpit } from '../src/workspace/cockpit';
import { connectAndList, makeWorkspace, session } from './support/workspace-harness';

describe('the attention view across hosts', () => {
  it('puts approvals then waiting sessions of every host on top, each once, and counts them for the title', async () => {
    const here = makeWorkspace();
    const far = makeWorkspace();
    await connectAndList(here, [session('a1', { activity: 'working' }), session('a2', { activity: 'waiting_input', label: 'api agent' }),
      session('a3', { activity: 'unknown' })]);
    await connectAndList(far, [session('b1', { activity: 'waiting_input' }), session('b2', { activity: 'pending_approval', waiting_line: 'Allow? (y/n)' }),
      session('b3', { activity: 'pending_approval', state: 'exited' })]);
    const cockpit = new Cockpit({ key: 'local', name: 'this machine', kind: 'local', workspace: here.workspace });
    cockpit.add({ key: 'h:far', name: 'far', kind: 'relay', workspace: far.workspace });
    const view = attentionView(cockpit.snapshot);
    expect(view.needsYou.map((r) => `${r.hostName}/${r.session.id}`)).toEqual(['far/b2', 'this machine/a2', 'far/b1']);
    expect(view.needsYou[0]!.waitingLine).toBe('Allow? (y/n)');
    expect(view.needsYou[1]!.name).toBe('api agent');
    expect(view.groups.map((g) => [g.name, g.rows.map((r) => r.session.id)])).toEqual([['this machine', ['a1', 'a3']], ['far', ['b3']]]);
    expect(view.count).toBe(3);
    expect(pageTitle(view.count)).toBe('(3) limpet');
    expect(pageTitle(0)).toBe('limpet');
  });

  it('a session the daemon says was answered leaves the top at once', async () => {
    const here = makeWorkspace();
    await connectAndList(here, [session('a1', { activity: 'waiting_input' })]);
    const cockpit = new Cockpit({ key: 'local', name: 'this machine', kind: 'local', workspace: here.workspace });
    expect(attentionView(cockpit.snapshot).count).toBe(1);
    here.network.last().text({ type: 'session_state', session_id: 'a1', activity: 'working', waiting_line: null });
    expect(attentionView(cockpit.snapshot).count).toBe(0);
  });
});

describe('the cockpit', () => {
  it('routes a tab to the workspace of its host and shows that host; a new terminal starts on the page\'s own host', async () => {
    const here = makeWorkspace();
    const far = makeWorkspace(undefined, undefined, undefined, { tabPrefix: 'far:', openEverySessionOnFreshPage: false });
    await connectAndList(here, []);
    await connectAndList(far, [session('b1')]);
    here.workspace.newTerminal();
    const cockpit = new Cockpit({ key: 'local', name: 'this machine', kind: 'local', workspace: here.workspace });
    cockpit.add({ key: 'h:far', name: 'far', kind: 'direct', workspace: far.workspace });
    expect(far.workspace.snapshot.tabs).toEqual([]);
    cockpit.openSession('h:far', 'b1');
    const tab = cockpit.snapshot.tabs.find((t) => t.sessionId === 'b1')!;
    expect(tab.hostKey).toBe('h:far');
    expect(cockpit.snapshot.activeTabId).toBe(tab.tabId);
    expect(cockpit.workspaceOf(tab.tabId)).toBe(far.workspace);
    expect(far.daemon.sent('attach_session').map((m) => m.session_id)).toEqual(['b1']);
    cockpit.newTerminal();
    expect(here.daemon.sent('spawn_session')).toHaveLength(2);
    expect(far.daemon.sent('spawn_session')).toEqual([]);
  });
});
