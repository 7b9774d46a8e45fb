import { describe, expect, it } from 'vitest';
import { DisposableStore, toDisposable } from '../src/core/disposable';
import { CountingTarget } from './support/counting-target';

describe('toDisposable', () => {
  it('runs its dispose once however often it is disposed', () => {
    let runs = 0;
    const disposable = toDisposable(() => runs++);
    disposable.dispose();
    disposable.dispose();
    expect(runs).toBe(1);
  });
});

describe('DisposableStore', () => {
  it('disposes everything it was handed and removes every listener added with its signal', () => {
    const store = new DisposableStore();
    const target = new CountingTarget();
    const heard: string[] = [];
    target.addEventListener('a', () => heard.push('a'), { signal: store.signal });
    target.addEventListener('b', () => heard.push('b'), { capture: true, signal: store.signal });
    let disposed = 0;
    store.add(toDisposable(() => disposed++));
    store.add(toDisposable(() => disposed++));
    target.dispatchEvent(new Event('a'));

    store.dispose();
    target.dispatchEvent(new Event('a'));
    target.dispatchEvent(new Event('b'));

    expect(heard).toEqual(['a']);
    expect(target.listeners).toBe(0);
    expect(disposed).toBe(2);
    expect(store.isDisposed).toBe(true);
  });

  it('disposes at once what is added after it was disposed', () => {
    const store = new DisposableStore();
    store.dispose();
    let disposed = false;
    store.add(toDisposable(() => (disposed = true)));
    expect(disposed).toBe(true);
  });

  it('goes on disposing the rest when one dispose throws', () => {
    const store = new DisposableStore();
    let disposed = false;
    store.add(toDisposable(() => {
      throw new Error('broken');
    }));
    store.add(toDisposable(() => (disposed = true)));
    const error = console.error;
    console.error = () => undefined;
    try {
      store.dispose();
    } finally {
      console.error = error;
    }
    expect(disposed).toBe(true);
  });
});
