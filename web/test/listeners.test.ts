import { describe, expect, it } from 'vitest';
import { Listeners } from '../src/core/listeners';

describe('Listeners', () => {
  it('stops calling a listener once its subscription is disposed, and holds nothing for it', () => {
    const listeners = new Listeners<number>();
    const seen: number[] = [];
    const subscription = listeners.subscribe((n) => seen.push(n));
    listeners.emit(1);
    subscription.dispose();
    listeners.emit(2);
    expect(seen).toEqual([1]);
    expect(listeners.size).toBe(0);
  });

  it('keeps each subscription of the same function apart', () => {
    const listeners = new Listeners<number>();
    const seen: number[] = [];
    const listener = (n: number) => seen.push(n);
    const first = listeners.subscribe(listener);
    listeners.subscribe(listener);
    first.dispose();
    listeners.emit(7);
    expect(seen).toEqual([7]);
  });
});
