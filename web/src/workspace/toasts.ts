// Short messages the page shows for a while and then drops (a tab closed elsewhere, keys refused).
// The same text shown again restarts its time instead of stacking. Time comes from the clock.
import type { Clock, TimerHandle } from '../core/clock';

export interface Toast {
  id: number;
  text: string;
}

export const TOAST_MS = 8_000;

export class Toasts {
  private shown: { toast: Toast; timer: TimerHandle }[] = [];
  private nextId = 1;

  constructor(private readonly clock: Clock, private readonly changed: () => void, private readonly ms = TOAST_MS) {}

  get list(): Toast[] {
    return this.shown.map((s) => s.toast);
  }

  show(text: string): void {
    const existing = this.shown.find((s) => s.toast.text === text);
    if (existing) this.clock.clearTimeout(existing.timer);
    const toast = existing?.toast ?? { id: this.nextId++, text };
    const timer = this.clock.setTimeout(() => {
      this.shown = this.shown.filter((s) => s.toast !== toast);
      this.changed();
    }, this.ms);
    this.shown = [...this.shown.filter((s) => s.toast !== toast), { toast, timer }];
    this.changed();
  }
}
