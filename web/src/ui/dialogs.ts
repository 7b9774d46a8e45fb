// Small modal dialogs: new command (argv + cwd), rename, confirm, the keyboard map. Each resolves
// null on cancel. While one is open, Tab stays inside it; when it closes, the focus goes back to
// where it was (the caller then moves it to the terminal after a submit).
import { h } from './dom';
import { SHORTCUTS } from './keymap';
import { parseArgv } from './status-text';

const FOCUSABLE = 'input, button, [tabindex]:not([tabindex="-1"])';

function modal<T>(title: string, body: HTMLElement[], submitLabel: string | null, read: () => T | null, danger = false): Promise<T | null> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  return new Promise((resolve) => {
    const close = (value: T | null) => {
      backdrop.remove();
      if (opener?.isConnected) opener.focus();
      resolve(value);
    };
    const buttons = submitLabel === null
      ? [h('button.primary', { type: 'submit' }, 'Close')]
      : [h('button', { type: 'button', onclick: () => close(null) }, 'Cancel'),
        h(danger ? 'button.danger' : 'button.primary', { type: 'submit' }, submitLabel)];
    const form = h('form.dialog', {
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (submitLabel === null) return close(null);
        const value = read();
        if (value !== null) close(value);
      },
    },
    h('h2', {}, title), ...body,
    h('div.dialog-buttons', {}, ...buttons));
    const dialog = h('div.dialog-frame', { role: 'dialog', 'aria-modal': 'true', 'aria-label': title }, form);
    const backdrop = h('div.backdrop', {
      onkeydown: (event: Event) => {
        const key = event as KeyboardEvent;
        if (key.key === 'Escape') {
          key.preventDefault();
          close(null);
        } else if (key.key === 'Tab') {
          trapTab(form, key);
        }
      },
    }, dialog);
    document.body.append(backdrop);
    (form.querySelector('input') ?? form.querySelector('button[type=submit]') as HTMLElement | null)?.focus();
  });
}

/** Keeps Tab and Shift+Tab cycling through the dialog's controls. */
function trapTab(form: HTMLElement, event: KeyboardEvent): void {
  const items = [...form.querySelectorAll<HTMLElement>(FOCUSABLE)];
  if (items.length === 0) return;
  const first = items[0]!;
  const last = items[items.length - 1]!;
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}

export function isDialogOpen(): boolean {
  return document.querySelector('.backdrop') !== null;
}

export function askCommand(): Promise<{ command: string[]; cwd?: string; label?: string } | null> {
  const command = h('input', { name: 'command', placeholder: "e.g. htop   or   claude --continue   or   vim 'my file'", autocomplete: 'off', required: true });
  const cwd = h('input', { name: 'cwd', placeholder: 'working directory (default: home)', autocomplete: 'off' });
  const label = h('input', { name: 'label', placeholder: 'name (optional)', autocomplete: 'off' });
  return modal('New command', [
    h('label', {}, 'Command', command), h('label', {}, 'Directory', cwd), h('label', {}, 'Name', label),
  ], 'Start', () => {
    const argv = parseArgv(command.value);
    if (argv.length === 0) return null;
    return {
      command: argv,
      ...(cwd.value.trim() ? { cwd: cwd.value.trim() } : {}),
      ...(label.value.trim() ? { label: label.value.trim() } : {}),
    };
  });
}

export function askName(current: string): Promise<string | null> {
  const input = h('input', { name: 'label', value: current, maxlength: 128, autocomplete: 'off', required: true });
  setTimeout(() => input.select(), 0);
  return modal('Rename', [h('label', {}, 'Name', input)], 'Rename', () => input.value.trim() || null);
}

export function confirmClose(name: string): Promise<boolean> {
  return modal(`Close “${name}”?`, [h('p', {}, 'This ends the program and forgets its output.')], 'Close', () => true, true)
    .then((v) => v === true);
}

export function showShortcuts(): Promise<void> {
  const rows = SHORTCUTS.map((s) => h('tr', {}, h('td', {}, h('kbd', {}, s.keys)), h('td', {}, s.what), h('td.dim', {}, s.where)));
  const table = h('table.shortcuts', {},
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Keys'), h('th', { scope: 'col' }, 'Does'), h('th', { scope: 'col' }, 'Where'))),
    h('tbody', {}, ...rows));
  return modal('Keyboard shortcuts', [table], null, () => null).then(() => undefined);
}

/** A dialog that only shows things (the page's details, its token control); closes with Close or Escape. */
export function showPanel(title: string, body: HTMLElement[]): Promise<void> {
  return modal(title, body, null, () => null).then(() => undefined);
}
