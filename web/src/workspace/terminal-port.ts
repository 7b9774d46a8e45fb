// What the workspace needs from a terminal widget. The UI adapts xterm.js to it; tests use a fake.

export interface TerminalPort {
  /** Writes bytes; `done` runs once the terminal has parsed them (xterm's write callback). */
  write(data: Uint8Array | string, done?: () => void): void;
  /** Clears the screen, scrollback and modes (before a snapshot or a full replay). */
  reset(): void;
  size(): { cols: number; rows: number };
  /**
   * Sets the size, before a saved screen is written back: a screen is right only at the size it
   * was drawn at (a full-screen program's alternate screen is not reflowed by a later fit).
   */
  resize(cols: number, rows: number): void;
  /** The screen and scrollback as escape sequences, for restoring after a reload. */
  serialize(): string;
  /** Calls `listener` with each title the program sets (OSC 0 or 2). */
  onTitleChange(listener: (title: string) => void): void;
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
