import { describe, expect, it } from 'vitest';
import { commandFor, neighbourTab, rovingTarget, SHORTCUTS, type FocusArea, type KeyPress } from '../src/ui/keymap';
import { isNarrow, sidebarOpen } from '../src/ui/layout';

function press(key: string, mods: Partial<KeyPress> = {}): KeyPress {
  return { key, code: '', ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, ...mods };
}
const ctrlShift = (key: string, code = '') => press(key, { code, ctrlKey: true, shiftKey: true });
const AREAS: FocusArea[] = ['terminal', 'tabs', 'sessions', 'field', 'other'];

describe('keyboard map', () => {
  it('page shortcuts are Ctrl+Shift combinations that work wherever the focus is', () => {
    for (const area of AREAS) {
      expect(commandFor(ctrlShift('~', 'Backquote'), area)).toBe('new-terminal');
      expect(commandFor(ctrlShift('X'), area)).toBe('close-tab');
      expect(commandFor(ctrlShift('PageDown'), area)).toBe('next-tab');
      expect(commandFor(ctrlShift('PageUp'), area)).toBe('previous-tab');
      expect(commandFor(ctrlShift('E'), area)).toBe('focus-sessions');
      expect(commandFor(ctrlShift('M'), area)).toBe('leave-terminal');
      expect(commandFor(ctrlShift('F'), area)).toBe('search');
    }
  });

  it('keys a shell or editor needs stay with the terminal', () => {
    for (const key of ['Tab', 'Escape', 'F2', 'Delete', 'x', 'e']) {
      expect(commandFor(press(key), 'terminal')).toBeNull();
      expect(commandFor(press(key, { ctrlKey: true }), 'terminal')).toBeNull();
    }
    expect(commandFor(press('Tab', { shiftKey: true }), 'terminal')).toBeNull();
    expect(commandFor(ctrlShift('C'), 'terminal')).toBeNull();
    expect(commandFor(ctrlShift('V'), 'terminal')).toBeNull();
    expect(commandFor(press('X', { ctrlKey: true, shiftKey: true, altKey: true }), 'terminal')).toBeNull();
  });

  it('outside the terminal F2 renames, Escape goes back to the terminal, Delete closes a focused tab', () => {
    expect(commandFor(press('F2'), 'tabs')).toBe('rename-tab');
    expect(commandFor(press('F2'), 'sessions')).toBe('rename-tab');
    expect(commandFor(press('Escape'), 'tabs')).toBe('back-to-terminal');
    expect(commandFor(press('Escape'), 'other')).toBe('back-to-terminal');
    expect(commandFor(press('Delete'), 'tabs')).toBe('close-tab');
    expect(commandFor(press('Delete'), 'sessions')).toBeNull();
    expect(commandFor(press('Escape'), 'field')).toBeNull();
    expect(commandFor(press('F2'), 'field')).toBeNull();
  });

  it('every command has a documented key', () => {
    const documented = SHORTCUTS.map((s) => s.keys).join(' | ');
    for (const keys of ['Ctrl+Shift+`', 'Ctrl+Shift+X', 'PageDown', 'Ctrl+Shift+M', 'Ctrl+Shift+E', 'Ctrl+Shift+F', 'F2', 'Escape', 'Delete']) {
      expect(documented).toContain(keys);
    }
  });
});

describe('roving focus and tab switching', () => {
  it('arrows move and wrap, Home and End jump, other keys do nothing', () => {
    expect(rovingTarget('ArrowRight', 0, 3, 'horizontal')).toBe(1);
    expect(rovingTarget('ArrowRight', 2, 3, 'horizontal')).toBe(0);
    expect(rovingTarget('ArrowLeft', 0, 3, 'horizontal')).toBe(2);
    expect(rovingTarget('ArrowDown', 1, 3, 'vertical')).toBe(2);
    expect(rovingTarget('ArrowUp', 1, 3, 'vertical')).toBe(0);
    expect(rovingTarget('ArrowDown', 1, 3, 'horizontal')).toBeNull();
    expect(rovingTarget('Home', 2, 3, 'vertical')).toBe(0);
    expect(rovingTarget('End', 0, 3, 'horizontal')).toBe(2);
    expect(rovingTarget('ArrowRight', 0, 0, 'horizontal')).toBeNull();
  });

  it('next and previous tab wrap around; without an active tab the first one is next', () => {
    expect(neighbourTab(['a', 'b', 'c'], 'c', 1)).toBe('a');
    expect(neighbourTab(['a', 'b', 'c'], 'a', -1)).toBe('c');
    expect(neighbourTab(['a', 'b', 'c'], 'b', 1)).toBe('c');
    expect(neighbourTab(['a'], null, 1)).toBe('a');
    expect(neighbourTab([], null, 1)).toBeNull();
  });
});

describe('sidebar layout', () => {
  it('collapses by default below 800 px and follows a person\'s choice', () => {
    expect(isNarrow(600)).toBe(true);
    expect(isNarrow(800)).toBe(false);
    expect(sidebarOpen(true, null)).toBe(false);
    expect(sidebarOpen(false, null)).toBe(true);
    expect(sidebarOpen(true, true)).toBe(true);
    expect(sidebarOpen(false, false)).toBe(false);
  });
});
