// Page visibility as a dependency: the workspace learns whether the page is hidden (another browser
// tab in front, a minimised window) through this port, so tests need no real document.

export interface PageVisibility {
  /** Whether the page is hidden now. */
  isHidden(): boolean;
  /** Calls `listener` with `isHidden()` on every change; returns the unsubscribe. */
  subscribe(listener: (hidden: boolean) => void): () => void;
}

/** The part of a Document this needs (`document.hidden` and its `visibilitychange` event). */
export interface VisibilityDocument {
  readonly hidden: boolean;
  addEventListener(type: 'visibilitychange', listener: () => void): void;
  removeEventListener(type: 'visibilitychange', listener: () => void): void;
}

/** The page's visibility as a document reports it. */
export function documentVisibility(doc: VisibilityDocument): PageVisibility {
  return {
    isHidden: () => doc.hidden,
    subscribe(listener) {
      const handler = () => listener(doc.hidden);
      doc.addEventListener('visibilitychange', handler);
      return () => doc.removeEventListener('visibilitychange', handler);
    },
  };
}
