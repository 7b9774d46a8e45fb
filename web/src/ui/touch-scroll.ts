// Touch scrolling of a terminal's scrollback: a finger dragged up or down moves it line by line, as
// a mouse wheel would; a tap still focuses the terminal (and opens the on-screen keyboard). The
// gesture is taken only once it moved more than a few pixels, and only vertically.
import type { Terminal } from '@xterm/xterm';

/** Pixels a finger moves before a touch counts as a scroll rather than a tap. */
const SLOP = 8;

/** Lines to scroll for a finger that moved `dy` pixels (positive: down) over rows `rowHeight` high; fractions carry over. */
export function linesFor(dy: number, rowHeight: number, carry: number): { lines: number; carry: number } {
  const exact = carry + -dy / Math.max(1, rowHeight);
  const lines = Math.trunc(exact);
  return { lines, carry: exact - lines };
}

/** Until `signal` aborts (the terminal's lifetime). */
export function enableTouchScroll(element: HTMLElement, term: Terminal, signal: AbortSignal): void {
  let lastY = 0;
  let startY = 0;
  let scrolling = false;
  let carry = 0;
  element.addEventListener('touchstart', (event) => {
    if (event.touches.length !== 1) return;
    startY = lastY = event.touches[0]!.clientY;
    scrolling = false;
    carry = 0;
  }, { passive: true, signal });
  element.addEventListener('touchmove', (event) => {
    if (event.touches.length !== 1) return;
    const y = event.touches[0]!.clientY;
    if (!scrolling && Math.abs(y - startY) < SLOP) return;
    scrolling = true;
    event.preventDefault(); // the page itself must not move
    const rowHeight = element.clientHeight / Math.max(1, term.rows);
    const step = linesFor(y - lastY, rowHeight, carry);
    carry = step.carry;
    lastY = y;
    if (step.lines !== 0) term.scrollLines(step.lines);
  }, { passive: false, signal });
}
