import { describe, expect, it } from 'vitest';
import { cleanTitle, defaultLabel, isPersonLabel, programName, sessionName, tabName } from '../src/sessions/tab-name';
import { connectAndList, flush, makeWorkspace, reconnect, session } from './support/workspace-harness';

const named = (extra: Partial<Parameters<typeof tabName>[0]>) =>
  tabName({ userNamed: false, current: 'old', label: 'bash', command: ['/bin/bash', '-l'], title: null, ...extra });

describe('tab names', () => {
  it('uses the title the program set, else argv[0]’s base name', () => {
    expect(named({ title: 'me@box: ~/src' })).toBe('me@box: ~/src');
    expect(named({})).toBe('bash');
    expect(named({ command: ['/usr/bin/htop'], label: 'htop' })).toBe('htop');
  });

  it('a person’s name wins over the title: a rename here, or a label the daemon did not make up', () => {
    expect(named({ userNamed: true, current: 'api', title: 'vim' })).toBe('api');
    expect(named({ label: 'build', title: 'make' })).toBe('build');
    expect(isPersonLabel('bash', ['/bin/bash'])).toBe(false);
    expect(isPersonLabel('build', ['/bin/bash'])).toBe(true);
  });

  it('two shells with no title tell apart by their directory; a label, then a title, wins over it', () => {
    expect(named({ cwd: '/home/me/src/api' })).toBe('bash · api');
    expect(named({ cwd: '/home/me/src/web/' })).toBe('bash · web');
    expect(named({ cwd: '/' })).toBe('bash');
    expect(programName(['claude'], '/srv/app\u001b[2J')).toBe('claude · app[2J');
    expect(sessionName(session('s1', { label: 'bash', command: ['bash'], cwd: '/a/api', last_cwd: '/a/web' }))).toBe('bash · web');
    expect(sessionName(session('s1', { label: 'bash', command: ['bash'], cwd: '/a/api', title: 'me@box: ~/a/api' }))).toBe('me@box: ~/a/api');
    expect(sessionName(session('s1', { label: 'fix the build', command: ['claude'], title: '✳ Claude Code' }))).toBe('fix the build');
  });

  it('keeps the last name while nothing is known yet', () => {
    expect(tabName({ userNamed: false, current: 'zsh', label: null, command: null, title: null })).toBe('zsh');
  });

  it('matches the daemon’s default label and cleans titles', () => {
    expect(defaultLabel(['/usr/local/bin/node', 'x.js'])).toBe('node');
    expect(defaultLabel([''])).toBe('session');
    expect(cleanTitle('  \u001b]bad\u0007 title ')).toBe(']bad title');
    expect(cleanTitle('   ')).toBeNull();
    expect(cleanTitle('x'.repeat(200))).toHaveLength(80);
  });
});

describe('Workspace: tab names', () => {
  it('a tab follows the program’s title, falls back to argv[0] without one, and a rename wins', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1', { label: 'bash', command: ['/bin/bash', '-l'] })]);
    h.daemon.attached('s1', 0, { session: session('s1', { label: 'bash', command: ['/bin/bash', '-l'] }) });
    expect(h.workspace.snapshot.tabs[0]!.name).toBe('bash · me');
    h.terminals.get('tab1')!.setTitle('me@box: ~/src');
    expect(h.workspace.snapshot.tabs[0]!.name).toBe('me@box: ~/src');
    expect(h.workspace.snapshot.sessionRows[0]!.name).toBe('me@box: ~/src');
    h.terminals.get('tab1')!.setTitle('');
    expect(h.workspace.snapshot.tabs[0]!.name).toBe('bash · me');
    h.workspace.rename('tab1', 'api');
    h.terminals.get('tab1')!.setTitle('vim');
    expect(h.workspace.snapshot.tabs[0]!.name).toBe('api');
    h.workspace.persist();
    expect(JSON.parse(h.store.getItem('limpet.workspace')!).tabs[0]).toMatchObject({ name: 'api', userNamed: true, title: 'vim' });
  });

  it('a tab opened while offline is named after the program the daemon started last time, and keeps it', async () => {
    const h = makeWorkspace();
    await connectAndList(h, []);
    h.workspace.newTerminal(); // a person opens the first terminal
    h.daemon.reply(h.daemon.sent('spawn_session')[0]!, { type: 'spawn_result', session: session('n1', { label: 'zsh', command: ['/usr/bin/zsh', '-l'] }) });
    await flush();
    h.network.last().drop();
    h.workspace.newTerminal();
    expect(h.workspace.snapshot.tabs[1]!.name).toBe('zsh');
    await reconnect(h, [session('n1', { label: 'zsh', command: ['/usr/bin/zsh', '-l'] })]);
    h.daemon.reply(h.daemon.sent('spawn_session')[0]!, { type: 'spawn_result', session: session('n2', { label: 'zsh', command: ['/usr/bin/zsh', '-l'] }) });
    await flush();
    expect(h.workspace.snapshot.tabs[1]).toMatchObject({ name: 'zsh · me', sessionId: 'n2' });
  });

  it('a rename in another window (sessions_changed) renames the tab here', async () => {
    const h = makeWorkspace();
    await connectAndList(h, [session('s1', { label: 'bash', command: ['bash'] })]);
    h.terminals.get('tab1')!.setTitle('me@box: ~');
    h.network.last().text({ type: 'sessions_changed', sessions: [session('s1', { label: 'deploys', command: ['bash'] })] });
    expect(h.workspace.snapshot.tabs[0]!.name).toBe('deploys');
  });
});
