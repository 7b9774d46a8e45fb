// xterm.js behind the TerminalPort the workspace writes to, plus what a person needs: fit to the
// window, copy/paste (Ctrl+Shift+C / Ctrl+Shift+V), clickable links, search in the scrollback.
// The page's own shortcuts (keymap.ts) are taken before xterm sees them.
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { SerializeAddon } from '@xterm/addon-serialize';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal } from '@xterm/xterm';
import type { TerminalPort } from '../workspace/terminal-port';

export interface XtermCallbacks {
  /**
   * Input for the session: `reply` when xterm produced it on its own, answering a query in the
   * output (device attributes, cursor position, colours), rather than from a person's key, paste,
   * IME or mouse event.
   */
  onInput(data: string, reply: boolean): void;
  onResize(cols: number, rows: number): void;
}

const SAVED_SCROLLBACK_LINES = 2000;
/** Events through which a person gives input (keys, paste, IME, mouse reports, focus reports). */
const PERSON_EVENTS = ['keydown', 'keypress', 'keyup', 'paste', 'compositionend', 'input', 'mousedown', 'mouseup', 'mousemove',
  'wheel', 'focusin', 'focusout', 'touchstart', 'touchend'] as const;

export class XtermTerminal implements TerminalPort {
  readonly term: Terminal;
  readonly search = new SearchAddon();
  private readonly fitAddon = new FitAddon();
  private readonly serializer = new SerializeAddon();

  constructor(readonly element: HTMLElement, callbacks: XtermCallbacks) {
    this.term = new Terminal({
      cursorBlink: true,
      scrollback: 10_000,
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
      fontSize: 13,
      theme: {
        background: '#101216', foreground: '#d8dee9', cursor: '#f0c674', selectionBackground: '#3b4252',
        scrollbarSliderBackground: 'rgba(76, 86, 106, 0.45)', scrollbarSliderHoverBackground: 'rgba(76, 86, 106, 0.7)',
        scrollbarSliderActiveBackground: 'rgba(94, 105, 128, 0.85)',
      },
    });
    for (const addon of [this.fitAddon, this.serializer, this.search, new WebLinksAddon()]) this.term.loadAddon(addon);
    this.term.open(element);
    // xterm turns a person's events into input synchronously, while the event is dispatched; its
    // answers to queries come while it parses output. Note the events (capture phase: before
    // xterm's own handlers) and anything emitted while none of them is being dispatched is a reply.
    for (const type of PERSON_EVENTS) element.addEventListener(type, (event) => this.personActing(event), { capture: true });
    this.term.onData((data) => callbacks.onInput(data, !this.isPersonActing()));
    this.term.onResize(({ cols, rows }) => callbacks.onResize(cols, rows));
    this.term.attachCustomKeyEventHandler((event) => {
      if (event.type !== 'keydown' || !event.ctrlKey || !event.shiftKey) return true;
      const key = event.key.toLowerCase();
      if (key === 'c' && this.term.hasSelection()) {
        void navigator.clipboard?.writeText(this.term.getSelection());
        return false;
      }
      if (key === 'v') {
        void navigator.clipboard?.readText().then((text) => text && this.asPerson(() => this.term.paste(text)), () => undefined);
        return false;
      }
      return true;
    });
  }

  private personDepth = 0;
  /** A person's events whose dispatch may not be over yet. */
  private personEvents: Event[] = [];

  /**
   * A person's event is being dispatched: input emitted until its dispatch is over is theirs. Not
   * "until the next microtask": the browser runs microtasks after each listener of an event it
   * dispatches, so xterm's own listener would already find a counter back at zero.
   */
  private personActing(event: Event): void {
    this.personEvents = this.personEvents.filter((e) => e.eventPhase !== Event.NONE);
    this.personEvents.push(event);
  }

  /** Whether a person's event is being dispatched now (an event's phase is NONE once it is done). */
  private isPersonActing(): boolean {
    return this.personDepth > 0 || this.personEvents.some((e) => e.eventPhase !== Event.NONE);
  }

  private asPerson(action: () => void): void {
    this.personDepth++;
    try {
      action();
    } finally {
      this.personDepth--;
    }
  }

  write(data: Uint8Array | string, done?: () => void): void {
    this.term.write(data, done);
  }

  reset(): void {
    this.term.reset();
  }

  size(): { cols: number; rows: number } {
    return { cols: this.term.cols, rows: this.term.rows };
  }

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
  }

  serialize(): string {
    return this.serializer.serialize({ scrollback: SAVED_SCROLLBACK_LINES });
  }

  /** Fits the terminal to its (visible) element; the resize callback tells the daemon. */
  fit(): void {
    if (this.element.offsetParent === null) return;
    try {
      this.fitAddon.fit();
    } catch {
      // not measurable yet (fonts still loading); the next layout change fits it
    }
  }

  focus(): void {
    this.term.focus();
  }

  onTitleChange(listener: (title: string) => void): void {
    this.term.onTitleChange(listener);
  }

  /** A visible bell: the terminal flashes (no sound: a refused key must not startle). */
  bell(): void {
    this.element.animate?.([{ filter: 'brightness(2.2)' }, { filter: 'none' }], { duration: 250 });
  }

  dispose(): void {
    this.term.dispose();
    this.element.remove();
  }
}
