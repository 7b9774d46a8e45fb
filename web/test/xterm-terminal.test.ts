import { Terminal } from '@xterm/xterm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { XtermTerminal } from '../src/ui/xterm-terminal';
import { CountingTarget } from './support/counting-target';

/** The terminal's element: counts its listeners and knows whether it was taken out of the page. */
class FakeElement extends CountingTarget {
  removed = false;
  remove(): void {
    this.removed = true;
  }
}

/** Wraps one of xterm's event getters so the test sees which of the disposables it returned were disposed. */
function watchEvent(name: 'onData' | 'onTitleChange'): { live: () => number } {
  const original = Object.getOwnPropertyDescriptor(Terminal.prototype, name)!.get!;
  let live = 0;
  vi.spyOn(Terminal.prototype as unknown as Record<typeof name, unknown>, name, 'get').mockImplementation(function (this: Terminal) {
    const event = original.call(this) as (listener: (value: string) => void) => { dispose(): void };
    return ((listener: (value: string) => void) => {
      const disposable = event(listener);
      live++;
      let done = false;
      return { dispose: () => { if (!done) { done = true; live--; } disposable.dispose(); } };
    }) as never;
  });
  return { live: () => live };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('XtermTerminal', () => {
  it('leaves no DOM listener and no xterm subscription behind once disposed', () => {
    const data = watchEvent('onData');
    const titles = watchEvent('onTitleChange');
    const element = new FakeElement();
    const pointerDowns: number[] = [];
    const terminal = new XtermTerminal(element as unknown as HTMLElement, {
      onInput: () => undefined,
      onViewerSize: () => undefined,
      onPointerDown: () => pointerDowns.push(1),
    });
    terminal.onTitleChange(() => undefined);
    element.dispatchEvent(new Event('pointerdown'));
    expect(pointerDowns).toHaveLength(1);
    expect(element.listeners).toBeGreaterThan(0);
    expect(data.live()).toBe(1);
    expect(titles.live()).toBe(1);

    terminal.dispose();
    element.dispatchEvent(new Event('pointerdown'));

    expect(pointerDowns).toHaveLength(1);
    expect(element.listeners).toBe(0);
    expect(data.live()).toBe(0);
    expect(titles.live()).toBe(0);
    expect(terminal.signal.aborted).toBe(true);
    expect(element.removed).toBe(true);
  });
});
