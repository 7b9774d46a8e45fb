import { describe, expect, it } from 'vitest';
import { documentVisibility } from '../src/core/page-visibility';

/** A document stand-in: an EventTarget with a `hidden` flag, changed the way a browser does. */
class FakeDocument extends EventTarget {
  hidden = false;
  change(hidden: boolean): void {
    this.hidden = hidden;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

describe('documentVisibility', () => {
  it('reads document.hidden and reports every visibilitychange until unsubscribed', () => {
    const doc = new FakeDocument();
    const visibility = documentVisibility(doc);
    expect(visibility.isHidden()).toBe(false);
    const seen: boolean[] = [];
    const unsubscribe = visibility.subscribe((hidden) => seen.push(hidden));
    doc.change(true);
    expect(visibility.isHidden()).toBe(true);
    doc.change(false);
    unsubscribe();
    doc.change(true);
    expect(seen).toEqual([true, false]);
  });
});
