// Time as a dependency: machines take a Clock so tests decide when timers fire.

export type TimerHandle = { readonly id: number };

export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | null | undefined): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => ({ id: globalThis.setTimeout(callback, ms) as unknown as number }),
  clearTimeout: (handle) => {
    if (handle) globalThis.clearTimeout(handle.id);
  },
};
