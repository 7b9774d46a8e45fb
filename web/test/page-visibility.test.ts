import { describe, expect, it } from 'vitest';
import { documentVisibility } from '../src/core/page-visibility';
import { CountingTarget } from './support/counting-target';

/** A document stand-in: an EventTarget with a `hidden` flag, changed the way a browser does, that counts its listeners. */
class FakeDocument extends CountingTarget {
  hidden = false;
  change(hidden: boolean): void {
    this.hidden = hidden;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

describe('documentVisibility', () => {
  it('reads document.hidden and reports every visibilitychange until the subscription is disposed', () => {
    const doc = new FakeDocument();
    const visibility = documentVisibility(doc);
    expect(visibility.isHidden()).toBe(false);
    const seen: boolean[] = [];
    const subscription = visibility.subscribe((hidden) => seen.push(hidden));
    expect(doc.listeners).toBe(1);
    doc.change(true);
    expect(visibility.isHidden()).toBe(true);
    doc.change(false);
    subscription.dispose();
    doc.change(true);
    expect(seen).toEqual([true, false]);
    expect(doc.listeners).toBe(0);
  });
});
