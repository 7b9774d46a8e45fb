// The page's keyboard map, as data and one pure lookup. Page shortcuts are Ctrl+Shift
// combinations, as in VS Code's terminal: a terminal cannot tell Ctrl+Shift+X from Ctrl+X, so
// shells and editors never need them. Keys browsers keep for themselves in an ordinary tab
// (Ctrl+Shift+T, Ctrl+Shift+W, Ctrl+Shift+N, Ctrl+Shift+Q, Ctrl+Shift+Tab) are avoided. Tab,
// Shift+Tab and Escape in a terminal belong to its program; Ctrl+Shift+M leaves the terminal.

export type Command =
  | 'new-terminal'
  | 'close-tab'
  | 'next-tab'
  | 'previous-tab'
  | 'focus-sessions'
  | 'leave-terminal'
  | 'search'
  | 'rename-tab'
  | 'back-to-terminal';

/** Where the focus is: a terminal, the tab bar, the session list, a text field, or elsewhere. */
export type FocusArea = 'terminal' | 'tabs' | 'sessions' | 'field' | 'other';

export interface KeyPress {
  key: string;
  code: string;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

export interface Shortcut {
  keys: string;
  what: string;
  where: string;
}

/** The documented map (docs/ui.md shows the same table; the shortcuts dialog renders this one). */
export const SHORTCUTS: readonly Shortcut[] = [
  { keys: 'Ctrl+Shift+`', what: 'New terminal', where: 'anywhere' },
  { keys: 'Ctrl+Shift+X', what: 'Close the active tab (asks first: it ends the program)', where: 'anywhere' },
  { keys: 'Ctrl+Shift+PageDown / PageUp', what: 'Next / previous tab', where: 'anywhere' },
  { keys: 'Ctrl+Shift+M', what: 'Move the focus out of the terminal, to its tab', where: 'anywhere' },
  { keys: 'Ctrl+Shift+E', what: 'Focus the session list (opens the sidebar when it is collapsed)', where: 'anywhere' },
  { keys: 'Ctrl+Shift+F', what: 'Search the scrollback', where: 'anywhere' },
  { keys: 'Ctrl+Shift+C / V', what: 'Copy the selection / paste', where: 'terminal' },
  { keys: 'F2', what: 'Rename the focused (or active) tab', where: 'outside the terminal' },
  { keys: 'Delete', what: 'Close the focused tab (asks first)', where: 'tab bar' },
  { keys: '← / →, Home / End', what: 'Move between tabs', where: 'tab bar' },
  { keys: '↑ / ↓, Home / End', what: 'Move between sessions', where: 'session list' },
  { keys: 'Enter / Space', what: 'Show the tab or open the session, then type in its terminal', where: 'tab bar, session list' },
  { keys: 'Escape', what: 'Back to the terminal (closes the collapsed sidebar); cancels dialogs and search', where: 'outside the terminal' },
  { keys: 'Tab / Shift+Tab', what: 'Next / previous control (in a terminal they go to the program)', where: 'outside the terminal' },
];

export function commandFor(press: KeyPress, area: FocusArea): Command | null {
  if (press.altKey || press.metaKey) return null;
  if (press.ctrlKey && press.shiftKey) {
    if (press.code === 'Backquote') return 'new-terminal';
    if (press.key === 'PageDown') return 'next-tab';
    if (press.key === 'PageUp') return 'previous-tab';
    switch (press.key.toLowerCase()) {
      case 'x': return 'close-tab';
      case 'e': return 'focus-sessions';
      case 'm': return 'leave-terminal';
      case 'f': return 'search';
      default: return null;
    }
  }
  if (press.ctrlKey || press.shiftKey || area === 'terminal' || area === 'field') return null;
  if (press.key === 'F2') return 'rename-tab';
  if (press.key === 'Escape') return 'back-to-terminal';
  if (press.key === 'Delete' && area === 'tabs') return 'close-tab';
  return null;
}

/** Roving focus in a list of `count` items: where `key` moves the focus from `index`, or null. */
export function rovingTarget(key: string, index: number, count: number, orientation: 'horizontal' | 'vertical'): number | null {
  if (count === 0) return null;
  const [back, forward] = orientation === 'horizontal' ? ['ArrowLeft', 'ArrowRight'] : ['ArrowUp', 'ArrowDown'];
  if (key === forward) return (index + 1) % count;
  if (key === back) return (index - 1 + count) % count;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return null;
}

/** The tab after (`step` 1) or before (-1) the active one, wrapping; null without tabs. */
export function neighbourTab(tabIds: readonly string[], activeTabId: string | null, step: 1 | -1): string | null {
  if (tabIds.length === 0) return null;
  const at = activeTabId === null ? -1 : tabIds.indexOf(activeTabId);
  if (at < 0) return tabIds[0]!;
  return tabIds[(at + step + tabIds.length) % tabIds.length]!;
}
