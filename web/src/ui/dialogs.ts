// Small modal dialogs: new command (argv + cwd), rename, confirm. Each resolves null on cancel.
import { h } from './dom';
import { parseArgv } from './status-text';

function modal<T>(title: string, body: HTMLElement[], submitLabel: string, read: () => T | null, danger = false): Promise<T | null> {
  return new Promise((resolve) => {
    const close = (value: T | null) => {
      backdrop.remove();
      resolve(value);
    };
    const form = h('form.dialog', {
      role: 'dialog', 'aria-label': title,
      onsubmit: (event: Event) => {
        event.preventDefault();
        const value = read();
        if (value !== null) close(value);
      },
    },
    h('h2', {}, title), ...body,
    h('div.dialog-buttons', {},
      h('button', { type: 'button', onclick: () => close(null) }, 'Cancel'),
      h(danger ? 'button.danger' : 'button.primary', { type: 'submit' }, submitLabel)));
    const backdrop = h('div.backdrop', { onkeydown: (event: Event) => (event as KeyboardEvent).key === 'Escape' && close(null) }, form);
    document.body.append(backdrop);
    (form.querySelector('input') ?? form.querySelector('button[type=submit]') as HTMLElement | null)?.focus();
  });
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
