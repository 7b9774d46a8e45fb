// The sidebar and its toggle. Below NARROW_WIDTH it is collapsed by default and, when opened,
// lies over the terminal; above, it sits beside it and can be collapsed too. A person's choice
// holds until the window crosses the breakpoint.
import { h } from './dom';
import { isNarrow, sidebarOpen } from './layout';

export class Sidebar {
  readonly toggle: HTMLButtonElement;
  private narrow: boolean;
  private choice: boolean | null = null;

  /** It follows the window's width until `signal` aborts (its owner's lifetime). */
  constructor(private readonly app: HTMLElement, readonly element: HTMLElement, private readonly onChange: () => void, signal: AbortSignal) {
    element.id = 'sidebar';
    this.toggle = h('button.sidebar-toggle', {
      type: 'button', 'aria-controls': 'sidebar', 'aria-label': 'Sessions sidebar', 'data-testid': 'sidebar-toggle',
      title: 'Show or hide the sessions (Ctrl+Shift+E focuses them)', onclick: () => this.setOpen(!this.isOpen),
    }, '☰');
    this.narrow = isNarrow(window.innerWidth);
    addEventListener('resize', () => {
      const narrow = isNarrow(window.innerWidth);
      if (narrow === this.narrow) return;
      this.narrow = narrow;
      this.choice = null;
      this.apply();
    }, { signal });
    this.apply();
  }

  get isOpen(): boolean {
    return sidebarOpen(this.narrow, this.choice);
  }

  /** Whether it lies over the terminal (open in a narrow window): it then closes once used. */
  get overlays(): boolean {
    return this.narrow && this.isOpen;
  }

  setOpen(open: boolean): void {
    this.choice = open;
    this.apply();
  }

  private apply(): void {
    const open = this.isOpen;
    this.app.classList.toggle('narrow', this.narrow);
    this.app.classList.toggle('sidebar-closed', !open);
    this.toggle.setAttribute('aria-expanded', String(open));
    this.onChange();
  }
}
