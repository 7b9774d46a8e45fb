// What the workspace needs from a terminal widget. The UI adapts xterm.js to it; tests use a fake.
import type { Disposable } from '../core/disposable';

export interface TerminalPort {
  /** Writes bytes; `done` runs once the terminal has parsed them (xterm's write callback). */
  write(data: Uint8Array | string, done?: () => void): void;
  /** Clears the screen, scrollback and modes (before a snapshot). */
  reset(): void;
  /** The terminal's size: the session's, which it follows. */
  size(): { cols: number; rows: number };
  /** Gives the terminal the session's size (where the session's output changes size). */
  resize(cols: number, rows: number): void;
  /**
   * The size this viewer would give the session: what fits its element, or null while it was
   * never shown (a hidden tab measures nothing).
   */
  viewerSize(): { cols: number; rows: number } | null;
  /** Calls `listener` with each title the program sets (OSC 0 or 2), until the subscription is disposed. */
  onTitleChange(listener: (title: string) => void): Disposable;
  /** Tells the person, visibly, that the terminal refused what they typed. */
  bell(): void;
  dispose(): void;
}

/** A Storage-like key/value store (sessionStorage, localStorage, or a Map in tests). */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export class MemoryStore implements KeyValueStore {
  readonly map = new Map<string, string>();
  getItem(key: string): string | null {
    return this.map.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.map.set(key, value);
  }
  removeItem(key: string): void {
    this.map.delete(key);
  }
}
