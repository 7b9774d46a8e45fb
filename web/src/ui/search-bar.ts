// Search in the active terminal's scrollback (Ctrl+Shift+F): Enter finds the next match,
// Shift+Enter the previous one, Escape closes.
import { h } from './dom';
import type { XtermTerminal } from './xterm-terminal';

export class SearchBar {
  readonly element: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly status: HTMLElement;

  constructor(private readonly target: () => XtermTerminal | null) {
    this.input = h('input', { placeholder: 'Search scrollback', 'aria-label': 'Search scrollback', 'data-testid': 'search-input' });
    this.status = h('span.search-status', { role: 'status' });
    this.input.onkeydown = (event) => {
      if (event.key === 'Escape') this.close();
      else if (event.key === 'Enter') this.find(!event.shiftKey);
    };
    this.element = h('div.searchbar.hidden', { role: 'search' }, this.input,
      h('button', { type: 'button', title: 'Previous match (Shift+Enter)', 'aria-label': 'Previous match', onclick: () => this.find(false) }, '↑'),
      h('button', { type: 'button', title: 'Next match (Enter)', 'aria-label': 'Next match', onclick: () => this.find(true) }, '↓'),
      this.status,
      h('button', { type: 'button', title: 'Close (Escape)', 'aria-label': 'Close search', onclick: () => this.close() }, '×'));
  }

  open(): void {
    this.element.classList.remove('hidden');
    this.input.select();
    this.input.focus();
  }

  close(): void {
    this.element.classList.add('hidden');
    this.target()?.search.clearDecorations();
    this.target()?.focus();
  }

  private find(forward: boolean): void {
    const terminal = this.target();
    if (!terminal || !this.input.value) return;
    const found = forward ? terminal.search.findNext(this.input.value) : terminal.search.findPrevious(this.input.value);
    this.status.textContent = found ? '' : 'no match';
  }
}
