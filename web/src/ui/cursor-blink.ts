// The cursor's blink, when a program asks for one (DECSCUSR 1/3/5, `CSI ? 12 h`). xterm.js blinks
// it with a CSS animation of the cursor's colours, and an animation that runs on the page's main
// thread keeps the page drawing frames: Chromium then holds a page's other work after a key until
// it has drawn a frame, so every echo was handled a frame late (key → glyph 25 ms instead of 9 ms,
// docs/benchmarks.md, figure 11). style.css turns that animation off; this machine blinks instead,
// by turning the `off` look on and off, which changes the page twice a second and never between.
//
// Pure: it is told what happened and calls `show(off)` when the look changes; time comes from the
// Clock. The rules:
//   - blinking(true) (a blinking cursor is drawn, in a focused terminal): the cursor is shown and
//     turns off after `halfPeriodMs`, on again after as long, and so on;
//   - blinking(false): the blink stops with the cursor shown;
//   - activity() (output was written): a blinking cursor is shown at once and its period starts
//     again, as terminals do while something is typed or printed; one that is shown already only
//     restarts its period, which changes nothing on the page;
//   - dispose(): the timer is cancelled.
import type { Clock, TimerHandle } from '../core/clock';

/** xterm.js' own blink: one second, half of it off. */
export const BLINK_HALF_PERIOD_MS = 500;

export class CursorBlink {
  private blinkingNow = false;
  private off = false;
  private timer: TimerHandle | null = null;

  constructor(
    private readonly show: (off: boolean) => void,
    private readonly clock: Clock,
    private readonly halfPeriodMs = BLINK_HALF_PERIOD_MS,
  ) {}

  get isOff(): boolean {
    return this.off;
  }

  blinking(blinking: boolean): void {
    if (blinking === this.blinkingNow) return;
    this.blinkingNow = blinking;
    if (blinking) {
      this.restart();
    } else {
      this.stop();
      this.setOff(false);
    }
  }

  activity(): void {
    if (!this.blinkingNow) return;
    this.setOff(false);
    this.restart();
  }

  dispose(): void {
    this.stop();
    this.blinkingNow = false;
  }

  private restart(): void {
    this.stop();
    this.timer = this.clock.setTimeout(() => this.toggle(), this.halfPeriodMs);
  }

  private toggle(): void {
    this.timer = null;
    this.setOff(!this.off);
    this.restart();
  }

  private stop(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private setOff(off: boolean): void {
    if (off === this.off) return;
    this.off = off;
    this.show(off);
  }
}
