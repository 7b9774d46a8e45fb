package dev.limpet.vt;

/**
 * The cursor of the active screen.
 *
 * @param x column, 0-based; equals the number of columns when a wrap is pending (the next
 *     printable character goes to the start of the next line)
 * @param y row of the visible screen, 0-based
 * @param visible DECTCEM (mode 25)
 * @param style 0 terminal default, 1 block, 2 underline, 3 bar (DECSCUSR)
 * @param blink -1 terminal default, 0 steady, 1 blinking (DECSCUSR)
 */
public record Cursor(int x, int y, boolean visible, int style, int blink) {
    /** Whether the next printable character wraps to the next line first. */
    public boolean pendingWrap(int cols) {
        return x >= cols;
    }
}
