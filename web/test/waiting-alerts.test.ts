import { describe, expect, it } from 'vitest';
import { sessionRows, type LinkState } from '../src/sessions/session-rows';
import { WaitingAlerts } from '../src/sessions/waiting-alerts';
import { session } from './support/workspace-harness';
import type { SessionInfo } from '../src/protocol/messages';

const rows = (sessions: SessionInfo[], link: LinkState = 'connected') => sessionRows(sessions, [], link);

describe('waiting alerts', () => {
  it('what already waits when the page first looks raises nothing', () => {
    const a = new WaitingAlerts();
    expect(a.update(rows([session('s1', { activity: 'waiting_input' }), session('s2', { activity: 'pending_approval' })]))).toEqual([]);
  });

  it('a session that starts waiting or asking raises one alert, named and in words', () => {
    const a = new WaitingAlerts();
    a.update(rows([session('s1', { activity: 'working', label: 'fix-build' })]));
    expect(a.update(rows([session('s1', { activity: 'waiting_input', label: 'fix-build' })]))).toEqual([
      { hostKey: 'local', sessionId: 's1', name: 'fix-build', activity: 'waiting_input', text: 'waiting for you', waitingLine: null },
    ]);
    expect(a.update(rows([session('s1', { activity: 'waiting_input', label: 'fix-build' })]))).toEqual([]);
    expect(a.update(rows([session('s1', { activity: 'pending_approval', label: 'fix-build' })])).map((x) => x.text)).toEqual(['needs approval']);
    expect(a.update(rows([session('s1', { activity: 'working', label: 'fix-build' })]))).toEqual([]);
    expect(a.update(rows([session('s1', { activity: 'idle', label: 'fix-build' })]))).toEqual([]);
  });

  it('a reconnect does not raise again what waited all along; a new session that waits does', () => {
    const a = new WaitingAlerts();
    a.update(rows([session('s1', { activity: 'waiting_input' })]));
    a.update(rows([session('s1', { activity: 'waiting_input' })], 'offline'));
    expect(a.update(rows([session('s1', { activity: 'waiting_input' })]))).toEqual([]);
    expect(a.update(rows([session('s1', { activity: 'waiting_input' }), session('s2', { activity: 'waiting_input' })])).map((x) => x.sessionId))
      .toEqual(['s2']);
  });

  it('an empty first list does not count as the first look', () => {
    const a = new WaitingAlerts();
    expect(a.update([])).toEqual([]);
    expect(a.update(rows([session('s1', { activity: 'waiting_input' })]))).toEqual([]);
  });

  it('the line a session waits on, once known, raises it again to name it', () => {
    const a = new WaitingAlerts();
    a.update(rows([session('s1', { activity: 'working' })]));
    expect(a.update(rows([session('s1', { activity: 'pending_approval' })])).map((x) => x.waitingLine)).toEqual([null]);
    expect(a.update(rows([session('s1', { activity: 'pending_approval', waiting_line: 'Run rm -rf build? (y/n)' })]))
      .map((x) => x.waitingLine)).toEqual(['Run rm -rf build? (y/n)']);
    expect(a.update(rows([session('s1', { activity: 'pending_approval', waiting_line: 'Run rm -rf build? (y/n)' })]))).toEqual([]);
  });

  it('each host takes note on its own first look: a host that connects later does not raise what already waited there', () => {
    const a = new WaitingAlerts();
    const on = (hostKey: string, sessions: SessionInfo[]) => rows(sessions).map((r) => ({ ...r, hostKey }));
    a.update(on('local', [session('s1', { activity: 'working' })]));
    expect(a.update([...on('local', [session('s1', { activity: 'working' })]), ...on('h:far', [session('s1', { activity: 'waiting_input' })])]))
      .toEqual([]);
    expect(a.update([...on('local', [session('s1', { activity: 'waiting_input' })]), ...on('h:far', [session('s1', { activity: 'waiting_input' })])])
      .map((x) => x.hostKey)).toEqual(['local']);
  });
});
