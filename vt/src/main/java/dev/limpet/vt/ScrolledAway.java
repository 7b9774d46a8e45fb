package dev.limpet.vt;

/**
 * Finds how much of a run of plain text (printable ASCII, CR and LF, the parser in its ground
 * state) need not be printed: text whose lines all scroll out of the screen and the scrollback
 * before the run ends leaves nothing behind. What stays after such a run is made by its last lines
 * alone, given the column the cursor had where they begin; every mode, the pen and the saved
 * cursor are as the run found them (plain text changes none of them). A flood of plain text then
 * costs the model a scan of most of its bytes instead of printing them.
 *
 * <p>The scan follows the cursor's column as {@link Printer} and {@link Emulator#lineFeed} move it
 * and notes each line break (a line feed, or a character that wraps): the run's part before the
 * break that leaves enough breaks after it (every row, every line the buffer keeps, and one more
 * for the line the cursor was on) is skipped, and the cursor is put at that break's column.
 *
 * <p>Not thread-safe: one per model, used under the model's own serialisation.
 */
final class ScrolledAway {
    /** Breaks remembered: (offset &lt;&lt; 32 | the cursor's column before the break), the last ones in a ring. */
    private long[] breaks = new long[0];

    /**
     * Skips what of {@code buf[off, end)} the screen would not keep, when the emulator is in a state
     * where plain text only prints and moves the cursor (and no UTF-8 sequence is half decoded):
     * returns the offset to feed from ({@code off} when nothing is skipped), with the cursor's
     * column set as it would be there.
     */
    int skip(Emulator t, byte[] buf, int off, int end) {
        ScreenBuffer b = t.buf;
        int needed = b.rows + b.correctLength(b.rows) + 1;
        // Input shorter than that many full rows is fed as it is, not scanned first: only text of
        // short lines would break often enough, and a scan that finds too few breaks costs a fifth
        // of feeding the bytes. A model that keeps up is fed small chunks; one that fell behind
        // (its feeder short of CPU) gets large ones and catches up the faster.
        if ((long) end - off < (long) needed * b.cols || !plainTextOnlyPrints(t)) {
            return off;
        }
        if (breaks.length < needed) {
            breaks = new long[needed];
        }
        int cols = b.cols;
        int x = b.x;
        long count = 0;
        int i = off;
        while (i < end) {
            byte c = buf[i];
            if (c >= 0x20 && c < 0x7F) {
                int runEnd = ScreenModel.printableRun(buf, i, end);
                while (i < runEnd) {
                    if (x >= cols) {
                        // pending wrap: this character goes to the start of the next line
                        breaks[(int) (count++ % needed)] = (long) i << 32 | x;
                        x = 0;
                    }
                    int n = Math.min(runEnd - i, cols - x);
                    x += n;
                    i += n;
                }
            } else if (c == '\r') {
                x = 0;
                i++;
            } else if (c == '\n') {
                breaks[(int) (count++ % needed)] = (long) i << 32 | x;
                if (t.convertEol) {
                    x = 0;
                }
                if (x >= cols) {
                    x--;
                }
                i++;
            } else {
                break;
            }
        }
        if (count < needed) {
            return off;
        }
        long from = breaks[(int) (count % needed)];
        b.x = (int) from;
        return (int) (from >>> 32);
    }

    /**
     * Plain text prints with the wrapping the scan follows, scrolls the whole screen (into the
     * scrollback on the normal buffer) and touches no state beyond the lines it leaves.
     */
    private static boolean plainTextOnlyPrints(Emulator t) {
        ScreenBuffer b = t.buf;
        return t.parser.state == Parser.GROUND && t.charset == null && !t.modes.insert && t.modes.wraparound
                && t.pen.link == 0 && b.scrollTop == 0 && b.scrollBottom == b.rows - 1;
    }
}
