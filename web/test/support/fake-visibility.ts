import type { PageVisibility } from '../../src/core/page-visibility';

/** A page whose visibility the test sets; `set` notifies like `visibilitychange` does. */
export class FakeVisibility implements PageVisibility {
  private readonly listeners = new Set<(hidden: boolean) => void>();

  constructor(public hidden = false) {}

  isHidden(): boolean {
    return this.hidden;
  }

  subscribe(listener: (hidden: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hides or shows the page and fires the change. */
  set(hidden: boolean): void {
    this.hidden = hidden;
    for (const listener of [...this.listeners]) listener(hidden);
  }

  listenerCount(): number {
    return this.listeners.size;
  }
}
