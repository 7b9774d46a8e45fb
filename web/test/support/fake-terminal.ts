import type { Disposable } from '../../src/core/disposable';
import { Listeners } from '../../src/core/listeners';
import type { TerminalPort } from '../../src/workspace/terminal-port';

/** Records what the workspace writes; write callbacks run only when the test flushes. */
export class FakeTerminal implements TerminalPort {
  text = '';
  resets = 0;
  disposed = false;
  bells = 0;
  private callbacks: (() => void)[] = [];
  readonly titleListeners = new Listeners<string>();

  write(data: Uint8Array | string, done?: () => void): void {
    this.text += typeof data === 'string' ? data : new TextDecoder().decode(data);
    if (done) this.callbacks.push(done);
  }
  reset(): void {
    this.text = '';
    this.resets++;
  }
  cols = 100;
  rows = 30;
  size() {
    return { cols: this.cols, rows: this.rows };
  }
  resize(cols: number, rows: number) {
    this.cols = cols;
    this.rows = rows;
  }
  /** What fits this viewer's element; null until shown. */
  viewer: { cols: number; rows: number } | null = { cols: 100, rows: 30 };
  viewerSize() {
    return this.viewer;
  }
  onTitleChange(listener: (title: string) => void): Disposable {
    return this.titleListeners.subscribe(listener);
  }
  bell(): void {
    this.bells++;
  }
  dispose(): void {
    this.disposed = true;
  }
  /** The program sets its title (OSC 0/2), as xterm reports it. */
  setTitle(title: string): void {
    this.titleListeners.emit(title);
  }
  /** Runs the oldest pending write callback only (xterm is still parsing the rest). */
  flushOne(): void {
    this.callbacks.shift()?.();
  }
  /** Runs pending write callbacks, as xterm does once it has parsed the data. */
  flush(): void {
    const callbacks = this.callbacks;
    this.callbacks = [];
    for (const callback of callbacks) callback();
  }
}
