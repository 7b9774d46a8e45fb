import { describe, expect, it } from 'vitest';
import { BLINK_HALF_PERIOD_MS, CursorBlink } from '../src/ui/cursor-blink';
import { FakeClock } from './support/fake-clock';

function makeBlink() {
  const clock = new FakeClock();
  const shown: boolean[] = [];
  const blink = new CursorBlink((off) => shown.push(off), clock);
  return { clock, shown, blink };
}

describe('CursorBlink', () => {
  it('turns a blinking cursor off and on every half period, and changes the page only then', () => {
    const { clock, shown, blink } = makeBlink();
    blink.blinking(true);
    expect(shown).toEqual([]);
    clock.advance(BLINK_HALF_PERIOD_MS - 1);
    expect(shown).toEqual([]);
    clock.advance(1);
    expect(shown).toEqual([true]);
    clock.advance(BLINK_HALF_PERIOD_MS);
    expect(shown).toEqual([true, false]);
    clock.advance(2 * BLINK_HALF_PERIOD_MS);
    expect(shown).toEqual([true, false, true, false]);
  });

  it('does nothing for a steady cursor, output or not', () => {
    const { clock, shown, blink } = makeBlink();
    blink.activity();
    clock.advance(10 * BLINK_HALF_PERIOD_MS);
    expect(shown).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('shows the cursor at once on output and starts its period again', () => {
    const { clock, shown, blink } = makeBlink();
    blink.blinking(true);
    clock.advance(BLINK_HALF_PERIOD_MS);
    expect(blink.isOff).toBe(true);
    blink.activity();
    expect(shown).toEqual([true, false]);
    clock.advance(BLINK_HALF_PERIOD_MS - 1);
    expect(shown).toEqual([true, false]);
    clock.advance(1);
    expect(shown).toEqual([true, false, true]);
  });

  it('output while the cursor is shown changes nothing on the page, only when it turns off next', () => {
    const { clock, shown, blink } = makeBlink();
    blink.blinking(true);
    for (let i = 0; i < 10; i++) {
      clock.advance(BLINK_HALF_PERIOD_MS - 100);
      blink.activity();
    }
    expect(shown).toEqual([]);
    clock.advance(BLINK_HALF_PERIOD_MS);
    expect(shown).toEqual([true]);
  });

  it('stops with the cursor shown when the program asks for a steady one, and after dispose', () => {
    const { clock, shown, blink } = makeBlink();
    blink.blinking(true);
    clock.advance(BLINK_HALF_PERIOD_MS);
    blink.blinking(false);
    expect(shown).toEqual([true, false]);
    expect(clock.pendingTimers()).toBe(0);
    blink.blinking(true);
    blink.dispose();
    clock.advance(10 * BLINK_HALF_PERIOD_MS);
    expect(shown).toEqual([true, false]);
    expect(clock.pendingTimers()).toBe(0);
  });
});
