// xterm.js behind the TerminalPort the workspace writes to, plus what a person needs: copy/paste
// (Ctrl+Shift+C / Ctrl+Shift+V), clickable links, search in the scrollback. The terminal has the
// session's size; the size this viewer would give it (what fits its element) is measured and
// reported, never imposed here (docs/ui.md, "Size"). The page's own shortcuts (keymap.ts) are
// taken before xterm sees them.
//
// xterm measures its font when it is opened: opened in a hidden element it measures nothing or the
// wrong thing, and every row then renders with broken letter spacing. So it is opened the first
// time its element is shown (output written before lands in its buffer all the same), and its
// font is measured again whenever it is shown.
//
// Everything it subscribes to (xterm's events, its element's DOM events) is owned by one
// DisposableStore, so dispose() leaves no listener behind.
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal } from '@xterm/xterm';
import { systemClock } from '../core/clock';
import { DisposableStore, type Disposable } from '../core/disposable';
import type { TerminalPort } from '../workspace/terminal-port';
import { CursorBlink } from './cursor-blink';

export interface XtermCallbacks {
  /**
   * Input for the session: `reply` when xterm produced it on its own, answering a query in the
   * output (device attributes, cursor position, colours), rather than from a person's key, paste,
   * IME or mouse event.
   */
  onInput(data: string, reply: boolean): void;
  /** The size this viewer would give the session (what fits its element) changed. */
  onViewerSize(cols: number, rows: number): void;
  /** A person pressed on the terminal (mouse or touch): the viewer they use now. */
  onPointerDown(): void;
}

/** The terminal's colours; the cursor's is also style.css' (`--limpet-cursor`) for its blink. */
const THEME = {
  background: '#101216', foreground: '#d8dee9', cursor: '#f0c674', selectionBackground: '#3b4252',
  scrollbarSliderBackground: 'rgba(76, 86, 106, 0.45)', scrollbarSliderHoverBackground: 'rgba(76, 86, 106, 0.7)',
  scrollbarSliderActiveBackground: 'rgba(94, 105, 128, 0.85)',
};

/** On xterm's rows while a blinking cursor is in its off half (style.css draws it so). */
const CURSOR_OFF_CLASS = 'limpet-cursor-off';

/** Events through which a person gives input (keys, paste, IME, mouse reports, focus reports). */
const PERSON_EVENTS = ['keydown', 'keypress', 'keyup', 'paste', 'compositionend', 'input', 'mousedown', 'mouseup', 'mousemove',
  'wheel', 'focusin', 'focusout', 'touchstart', 'touchend'] as const;

export class XtermTerminal implements TerminalPort {
  readonly term: Terminal;
  readonly search = new SearchAddon();
  private readonly fitAddon = new FitAddon();
  private readonly lifetime = new DisposableStore();
  private opened = false;
  private readonly blink = new CursorBlink((off) => {
    this.element.querySelector('.xterm-rows')?.classList.toggle(CURSOR_OFF_CLASS, off);
  }, systemClock);
  private measured: { cols: number; rows: number } | null = null;

  constructor(readonly element: HTMLElement, private readonly callbacks: XtermCallbacks) {
    this.term = new Terminal({
      // A steady cursor unless the program asks for a blinking one (cursor-blink.ts blinks it then).
      cursorBlink: false,
      scrollback: 10_000,
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
      fontSize: 13,
      theme: THEME,
    });
    for (const addon of [this.fitAddon, this.search, new WebLinksAddon()]) this.term.loadAddon(addon);
    // Whether the cursor blinks is xterm's to decide (the program's request, the focus); it says so
    // in the classes of what it draws. It redraws on focus and blur without a render event, and
    // has done so by the time focusin/focusout reach this element.
    const blinkNow = () => this.blink.blinking(this.element.querySelector('.xterm-rows.xterm-focus .xterm-cursor.xterm-cursor-blink') !== null);
    this.lifetime.add(this.term.onRender(blinkNow));
    for (const type of ['focusin', 'focusout']) element.addEventListener(type, blinkNow, { signal: this.lifetime.signal });
    this.lifetime.add({ dispose: () => this.blink.dispose() });
    // xterm turns a person's events into input synchronously, while the event is dispatched; its
    // answers to queries come while it parses output. Note the events (capture phase: before
    // xterm's own handlers) and anything emitted while none of them is being dispatched is a reply.
    const signal = this.lifetime.signal;
    for (const type of PERSON_EVENTS) element.addEventListener(type, (event) => this.personActing(event), { capture: true, signal });
    this.lifetime.add(this.term.onData((data) => callbacks.onInput(data, !this.isPersonActing())));
    element.addEventListener('pointerdown', () => callbacks.onPointerDown(), { signal });
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
    this.blink.activity();
    this.term.write(data, done);
  }

  reset(): void {
    this.term.reset();
  }

  size(): { cols: number; rows: number } {
    return { cols: this.term.cols, rows: this.term.rows };
  }

  resize(cols: number, rows: number): void {
    if (cols !== this.term.cols || rows !== this.term.rows) this.term.resize(cols, rows);
  }

  viewerSize(): { cols: number; rows: number } | null {
    return this.measured;
  }

  /**
   * The element is shown: xterm is opened now if it never was, its font measured again (a font
   * that loaded meanwhile, a zoom), and the size that fits the element reported.
   */
  shown(): void {
    if (!this.isVisible()) return;
    if (!this.opened) {
      this.opened = true;
      this.element.style.setProperty('--limpet-cursor', THEME.cursor);
      this.term.open(this.element);
    } else {
      this.remeasureFont();
    }
    this.fit();
  }

  /** Measures what fits the (visible) element; a change is reported as this viewer's size. */
  fit(): void {
    if (!this.opened || !this.isVisible()) return;
    let size: { cols: number; rows: number } | undefined;
    try {
      size = this.fitAddon.proposeDimensions();
    } catch {
      // not measurable yet (fonts still loading); the next layout change measures again
    }
    if (!size || !Number.isFinite(size.cols) || !Number.isFinite(size.rows)) return;
    if (this.measured?.cols === size.cols && this.measured.rows === size.rows) return;
    this.measured = { cols: size.cols, rows: size.rows };
    this.callbacks.onViewerSize(size.cols, size.rows);
  }

  /** The width of one cell as xterm renders it now (for the browser tests). */
  cellWidth(): number {
    const core = (this.term as unknown as { _core?: { _renderService?: { dimensions?: { css?: { cell?: { width?: number } } } } } })._core;
    return core?._renderService?.dimensions?.css?.cell?.width ?? 0;
  }

  private isVisible(): boolean {
    return this.element.isConnected && this.element.offsetParent !== null;
  }

  /**
   * xterm measures its font again only when the font options change: change the size by a hair
   * and back, which measures twice and leaves everything as it was.
   */
  private remeasureFont(): void {
    const size = this.term.options.fontSize ?? 13;
    this.term.options.fontSize = size + 0.5;
    this.term.options.fontSize = size;
  }

  focus(): void {
    this.term.focus();
  }

  onTitleChange(listener: (title: string) => void): Disposable {
    return this.lifetime.add(this.term.onTitleChange(listener));
  }

  /** What ends with this terminal: listeners added with its signal are removed by dispose(). */
  get signal(): AbortSignal {
    return this.lifetime.signal;
  }

  /** A visible bell: the terminal flashes (no sound: a refused key must not startle). */
  bell(): void {
    this.element.animate?.([{ filter: 'brightness(2.2)' }, { filter: 'none' }], { duration: 250 });
  }

  dispose(): void {
    this.lifetime.dispose();
    this.term.dispose();
    this.element.remove();
  }
}
