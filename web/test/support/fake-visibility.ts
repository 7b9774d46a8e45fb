import type { Disposable } from '../../src/core/disposable';
import { Listeners } from '../../src/core/listeners';
import type { PageVisibility } from '../../src/core/page-visibility';

/** A page whose visibility the test sets; `set` notifies like `visibilitychange` does. */
export class FakeVisibility implements PageVisibility {
  private readonly listeners = new Listeners<boolean>();

  constructor(public hidden = false) {}

  isHidden(): boolean {
    return this.hidden;
  }

  subscribe(listener: (hidden: boolean) => void): Disposable {
    return this.listeners.subscribe(listener);
  }

  /** Hides or shows the page and fires the change. */
  set(hidden: boolean): void {
    this.hidden = hidden;
    this.listeners.emit(hidden);
  }

  listenerCount(): number {
    return this.listeners.size;
  }
}
