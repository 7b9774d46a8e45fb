import { describe, expect, it } from 'vitest';
import { keySequence, withModifiers } from '../src/ui/key-row';
import { linesFor } from '../src/ui/touch-scroll';
import { parseCockpitHosts, prefixedStore } from '../src/workspace/cockpit-hosts';
import { MemoryStore } from '../src/workspace/terminal-port';

const none = { ctrl: false, alt: false };
const normal = { applicationCursorKeys: false };

describe('the key row', () => {
  it('sends what a keyboard would: Esc, Tab, Shift+Tab, Ctrl-C, Enter', () => {
    expect(keySequence('Escape', none, normal)).toBe('\u001b');
    expect(keySequence('Tab', none, normal)).toBe('\t');
    expect(keySequence('BackTab', none, normal)).toBe('\u001b[Z');
    expect(keySequence('CtrlC', none, normal)).toBe('\u0003');
    expect(keySequence('Enter', none, normal)).toBe('\r');
  });

  it('arrows follow the program’s cursor-key mode and take modifiers as xterm encodes them', () => {
    expect(keySequence('ArrowUp', none, normal)).toBe('\u001b[A');
    expect(keySequence('ArrowLeft', none, { applicationCursorKeys: true })).toBe('\u001bOD');
    expect(keySequence('ArrowRight', { ctrl: true, alt: false }, normal)).toBe('\u001b[1;5C');
    expect(keySequence('ArrowDown', { ctrl: false, alt: true }, { applicationCursorKeys: true })).toBe('\u001b[1;3B');
    expect(keySequence('Escape', { ctrl: false, alt: true }, normal)).toBe('\u001b\u001b');
  });

  it('sticky Ctrl and Alt turn the next typed character into its control character or prefix it with ESC', () => {
    const ctrl = { ctrl: true, alt: false };
    expect(withModifiers('d', ctrl)).toBe('\u0004');
    expect(withModifiers('C', ctrl)).toBe('\u0003');
    expect(withModifiers('[', ctrl)).toBe('\u001b');
    expect(withModifiers(' ', ctrl)).toBe('\u0000');
    expect(withModifiers('b', { ctrl: false, alt: true })).toBe('\u001bb');
    expect(withModifiers('x', { ctrl: true, alt: true })).toBe('\u001b\u0018');
    expect(withModifiers('hello', ctrl)).toBe('hello');
    expect(withModifiers('d', none)).toBe('d');
  });
});

describe('touch scrolling', () => {
  it('a finger moving down shows earlier lines; fractions of a row carry over', () => {
    expect(linesFor(40, 20, 0)).toEqual({ lines: -2, carry: 0 });
    const half = linesFor(-10, 20, 0);
    expect(half.lines).toBe(0);
    expect(linesFor(-10, 20, half.carry).lines).toBe(1);
  });
});

describe('the other hosts of hosts.json', () => {
  it('keeps well-formed direct and relay entries and leaves out the rest', () => {
    const secret = 'A'.repeat(43);
    expect(parseCockpitHosts({ hosts: [
      { name: 'box', kind: 'direct', url: 'http://10.0.0.2:7420', token: 't' },
      { name: 'far', kind: 'relay', url: 'https://relay.example/h/abcdefghijklmnopqrstuvwxyz', secret },
      { name: 'far', kind: 'relay', url: 'https://relay.example/h/x', secret },
      { name: 'bad', kind: 'relay', url: 'https://relay.example/h/x', secret: 'short' },
      { name: 'js', kind: 'direct', url: 'javascript:alert(1)', token: 't' },
      'nonsense',
    ] })).toEqual([
      { name: 'box', kind: 'direct', url: 'http://10.0.0.2:7420', token: 't' },
      { name: 'far', kind: 'relay', url: 'https://relay.example/h/abcdefghijklmnopqrstuvwxyz', secret },
    ]);
    expect(parseCockpitHosts(null)).toEqual([]);
  });

  it('each host keeps its tabs under keys of its own', () => {
    const store = new MemoryStore();
    prefixedStore(store, 'limpet.host.far.').setItem('limpet.workspace', '{}');
    expect([...store.map.keys()]).toEqual(['limpet.host.far.limpet.workspace']);
  });
});
