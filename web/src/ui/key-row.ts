// The key row: the keys a phone's on-screen keyboard lacks and an agent needs (Esc, Tab, Shift+Tab,
// Ctrl, Alt, the arrows, Ctrl-C, Enter), in a row above the keyboard. Ctrl and Alt are sticky: a
// tap arms one for the next key, from the row or from the on-screen keyboard (Ctrl then "d" sends
// Ctrl-D), then it lets go. The buttons never take the focus, so the on-screen keyboard stays up.
// What each key sends is pure (keySequence, withModifiers) and tested without a page.
import { h } from './dom';

export type RowKey = 'Escape' | 'Tab' | 'BackTab' | 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight' | 'CtrlC' | 'Enter';

export interface Modifiers {
  ctrl: boolean;
  alt: boolean;
}

/** Whether the program asked for application cursor keys (DECCKM): arrows then send ESC O x. */
export interface KeyContext {
  applicationCursorKeys: boolean;
}

const ARROWS: Record<string, string> = { ArrowUp: 'A', ArrowDown: 'B', ArrowRight: 'C', ArrowLeft: 'D' };

/** The bytes a key of the row sends, with the armed modifiers (as xterm.js encodes the same keys). */
export function keySequence(key: RowKey, mods: Modifiers, context: KeyContext): string {
  const arrow = ARROWS[key];
  if (arrow) {
    const modifier = 1 + (mods.alt ? 2 : 0) + (mods.ctrl ? 4 : 0);
    if (modifier > 1) return `\u001b[1;${modifier}${arrow}`;
    return context.applicationCursorKeys ? `\u001bO${arrow}` : `\u001b[${arrow}`;
  }
  const plain = { Escape: '\u001b', Tab: '\t', BackTab: '\u001b[Z', CtrlC: '\u0003', Enter: '\r' }[key as Exclude<RowKey, keyof typeof ARROWS>];
  return mods.alt && key !== 'BackTab' ? `\u001b${plain}` : plain;
}

/**
 * What the on-screen keyboard typed, with the armed modifiers: Ctrl turns a letter (and @ [ \ ] ^ _
 * ? and space) into its control character, Alt puts ESC before it. Text longer than one character
 * (a word the keyboard completed, a paste) passes as it is.
 */
export function withModifiers(data: string, mods: Modifiers): string {
  if ([...data].length !== 1 || (!mods.ctrl && !mods.alt)) return data;
  let out = data;
  if (mods.ctrl) {
    const c = data.toUpperCase().charCodeAt(0);
    if (data === ' ' || data === '@' || data === '2') out = '\u0000';
    else if (data === '?') out = '\u007f';
    else if (c >= 0x40 && c <= 0x5f) out = String.fromCharCode(c - 0x40);
  }
  return mods.alt ? `\u001b${out}` : out;
}

// Each accessible name starts with the button's visible text (speech users say what they see).
const BUTTONS: { key: RowKey | 'ctrl' | 'alt'; text: string; label: string }[] = [
  { key: 'Escape', text: 'Esc', label: 'Esc' },
  { key: 'Tab', text: 'Tab', label: 'Tab' },
  { key: 'BackTab', text: '⇤Tab', label: 'Shift+Tab' },
  { key: 'ctrl', text: 'Ctrl', label: 'Ctrl (for the next key)' },
  { key: 'alt', text: 'Alt', label: 'Alt (for the next key)' },
  { key: 'ArrowLeft', text: '←', label: 'Left' },
  { key: 'ArrowUp', text: '↑', label: 'Up' },
  { key: 'ArrowDown', text: '↓', label: 'Down' },
  { key: 'ArrowRight', text: '→', label: 'Right' },
  { key: 'CtrlC', text: '^C', label: '^C (Ctrl+C, interrupt)' },
  { key: 'Enter', text: '⏎', label: 'Enter' },
];

export class KeyRow {
  readonly element: HTMLElement;
  private mods: Modifiers = { ctrl: false, alt: false };
  private readonly toggles = new Map<'ctrl' | 'alt', HTMLElement>();

  /** `send`: bytes for the terminal on show, as if typed there; `context`: its current modes. */
  constructor(private readonly send: (data: string) => void, private readonly context: () => KeyContext) {
    this.element = h('div.key-row', { role: 'toolbar', 'aria-label': 'Terminal keys', 'data-testid': 'key-row' },
      ...BUTTONS.map(({ key, text, label }) => {
        const sticky = key === 'ctrl' || key === 'alt';
        const button = h('button.key', {
          type: 'button', tabindex: '-1', 'aria-label': label, 'data-key': key, ...(sticky ? { 'aria-pressed': 'false' } : {}),
          // Keep the focus (and the on-screen keyboard) in the terminal.
          onpointerdown: (event: Event) => event.preventDefault(),
          onmousedown: (event: Event) => event.preventDefault(),
          onclick: () => (sticky ? this.toggle(key) : this.press(key)),
        }, text);
        if (sticky) this.toggles.set(key, button);
        return button;
      }));
  }

  /** Input from the on-screen keyboard: the armed modifiers apply to it, once. */
  typed(data: string): string {
    if (!this.mods.ctrl && !this.mods.alt) return data;
    const out = withModifiers(data, this.mods);
    this.release();
    return out;
  }

  private press(key: RowKey): void {
    this.send(keySequence(key, this.mods, this.context()));
    this.release();
  }

  private toggle(which: 'ctrl' | 'alt'): void {
    this.mods = { ...this.mods, [which]: !this.mods[which] };
    this.show();
  }

  private release(): void {
    if (!this.mods.ctrl && !this.mods.alt) return;
    this.mods = { ctrl: false, alt: false };
    this.show();
  }

  private show(): void {
    for (const [which, button] of this.toggles) button.setAttribute('aria-pressed', String(this.mods[which]));
  }
}
