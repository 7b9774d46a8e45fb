// Page visibility as a dependency: the workspace learns whether the page is hidden (another browser
// tab in front, a minimised window) through this port, so tests need no real document.
import { type Disposable, toDisposable } from './disposable';

export interface PageVisibility {
  /** Whether the page is hidden now. */
  isHidden(): boolean;
  /** Calls `listener` with `isHidden()` on every change, until the subscription is disposed. */
  subscribe(listener: (hidden: boolean) => void): Disposable;
}

/** The part of a Document this needs (`document.hidden` and its `visibilitychange` event). */
export interface VisibilityDocument {
  readonly hidden: boolean;
  addEventListener(type: 'visibilitychange', listener: () => void, options: { signal: AbortSignal }): void;
}

/** The page's visibility as a document reports it. */
export function documentVisibility(doc: VisibilityDocument): PageVisibility {
  return {
    isHidden: () => doc.hidden,
    subscribe(listener) {
      const subscription = new AbortController();
      doc.addEventListener('visibilitychange', () => listener(doc.hidden), { signal: subscription.signal });
      return toDisposable(() => subscription.abort());
    },
  };
}
