package dev.limpet.vt;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;

/**
 * A headless terminal emulator: feed it the output of a program and read back the screen, or a
 * snapshot that redraws it elsewhere.
 *
 * <p>Behaviour follows xterm.js 6 (the browser client), cell for cell: the same parser, the same
 * Unicode 6 widths and combining rules, the same treatment of scroll regions, wrapping, the
 * alternate screen and resize (with reflow of wrapped lines on the normal screen). See the module
 * README for the few documented differences.
 *
 * <p>Not thread-safe: a model must be used by one thread at a time (the caller serialises).
 * Memory is bounded by {@code cols * (rows + scrollbackLines)} cells; feeding costs O(1) per
 * scrolled line whatever the scrollback size, and plain text that scrolls out of the scrollback
 * within one feed is scanned, not printed ({@link ScrolledAway}).
 */
public final class ScreenModel {
    private static final int CHUNK = 8192;
    /**
     * Printable ASCII runs at least this long, met in the ground state, skip decoding and parsing
     * (shorter ones cost less through the general path than a switch of paths).
     */
    private static final int FAST_RUN = 8;
    /** Eight bytes at a time for the printable scan (see {@link #allPrintable}). */
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    final Emulator emu;
    private final Utf8Decoder decoder = new Utf8Decoder();
    private final ScrolledAway scrolledAway = new ScrolledAway();
    private int[] decoded = new int[CHUNK];

    private ScreenModel(int cols, int rows, int scrollbackLines) {
        emu = new Emulator(cols, rows, scrollbackLines);
    }

    /**
     * Creates a blank screen.
     *
     * @param cols columns (at least 2; smaller values are raised to 2, as xterm.js does)
     * @param rows rows (at least 1)
     * @param scrollbackLines lines kept above the screen of the normal buffer (xterm.js' default is
     *     1000); 0 keeps none
     */
    public static ScreenModel create(int cols, int rows, int scrollbackLines) {
        if (scrollbackLines < 0) {
            throw new IllegalArgumentException("scrollbackLines < 0: " + scrollbackLines);
        }
        return new ScreenModel(cols, rows, scrollbackLines);
    }

    /**
     * Feeds program output (UTF-8 with escape sequences). Chunks may be split anywhere, also
     * inside a UTF-8 sequence or an escape sequence.
     */
    public void feed(byte[] buf, int off, int len) {
        Objects.checkFromIndexSize(off, len, buf.length);
        int end = off + len;
        if (decoder.idle()) {
            off = scrolledAway.skip(emu, buf, off, end);
        }
        while (off < end) {
            if (emu.parser.state == Parser.GROUND && decoder.idle()) {
                int run = printableRun(buf, off, end);
                if (run - off >= FAST_RUN) {
                    Printer.printAscii(emu, buf, off, run, decoded, emu.parser.printRunOpen);
                    emu.parser.printRunOpen = true;
                    off = run;
                    continue;
                }
            }
            int n = untilNextRun(buf, off, Math.min(end, off + CHUNK)) - off;
            int count = decoder.decode(buf, off, n, decoded);
            emu.parser.parse(decoded, count);
            off += n;
        }
    }

    /** Whether all eight bytes of {@code w} are printable ASCII (each in 0x20..0x7E), tested at once. */
    static boolean allPrintable(long w) {
        long below = (w - ONES * 0x20) & ~w & HIGHS;
        long above = ((w + ONES * (0x7F - 0x7E)) | w) & HIGHS;
        return (below | above) == 0;
    }

    private static boolean printable(byte b) {
        return b >= 0x20 && b < 0x7F;
    }

    static int printableRun(byte[] buf, int from, int end) {
        while (from + Long.BYTES <= end && allPrintable((long) WORDS.get(buf, from))) {
            from += Long.BYTES;
        }
        while (from < end && printable(buf[from])) {
            from++;
        }
        return from;
    }

    /**
     * Where the general path may stop so the fast one can take over: before the next run of
     * {@link #FAST_RUN} printable bytes, past the printable bytes at {@code from} (which may be an
     * escape sequence's parameters, as the parser may be in the middle of one).
     */
    private static int untilNextRun(byte[] buf, int from, int end) {
        int i = printableRun(buf, from, end);
        int runStart = i;
        for (; i < end; i++) {
            if (!printable(buf[i])) {
                runStart = i + 1;
            } else if (i + 1 - runStart >= FAST_RUN) {
                return runStart;
            }
        }
        return end;
    }

    /** Feeds all of {@code buf}. */
    public void feed(byte[] buf) {
        feed(buf, 0, buf.length);
    }

    /**
     * Resizes the screen as xterm.js does: wrapped lines of the normal buffer are reflowed to the
     * new width, rows are taken from or given back to scrollback, the scroll region is reset.
     */
    public void resize(int cols, int rows) {
        Resizer.resize(emu, Math.max(cols, 2), Math.max(rows, 1));
    }

    /** Columns. */
    public int cols() {
        return emu.cols;
    }

    /** Rows. */
    public int rows() {
        return emu.rows;
    }

    /** The cell at column {@code x}, visible row {@code y} of the active screen. */
    public Cell cell(int x, int y) {
        Objects.checkIndex(x, emu.cols);
        Objects.checkIndex(y, emu.rows);
        return Cell.of(emu.buf.line(y), x);
    }

    /** Lines of scrollback currently held above the screen (always 0 on the alternate screen). */
    public int scrollbackLength() {
        return emu.buf.ybase;
    }

    /**
     * A scrollback line as text (trailing spaces trimmed); {@code i} counts from the oldest line
     * (0) to the newest ({@link #scrollbackLength()} - 1).
     */
    public String scrollbackLine(int i) {
        Objects.checkIndex(i, emu.buf.ybase);
        return stripSpaces(emu.buf.lines.get(i).text(true));
    }

    private static String stripSpaces(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        return s.substring(0, end);
    }

    /** Lines of scrollback this model keeps at most. */
    public int scrollbackLimit() {
        return emu.scrollback;
    }

    /** Whether visible row {@code y} continues the row above it (the text wrapped). */
    public boolean isWrapped(int y) {
        Objects.checkIndex(y, emu.rows);
        return emu.buf.line(y).wrapped;
    }

    /** The cursor. */
    public Cursor cursor() {
        Modes m = emu.modes;
        return new Cursor(emu.buf.x, emu.buf.y, !emu.cursorHidden, m.cursorStyle, m.cursorBlink);
    }

    /** The modes a client must know to behave like the terminal the program wrote to. */
    public TerminalModes modes() {
        Modes m = emu.modes;
        return new TerminalModes(m.applicationCursorKeys, m.applicationKeypad, m.bracketedPaste,
                m.insert, m.origin, m.wraparound, m.reverseWraparound, m.sendFocus,
                m.synchronizedOutput, m.mouseProtocol, m.mouseEncoding, emu.convertEol);
    }

    /** The window title (OSC 0 or 2), "" when none was set. */
    public String title() {
        return emu.title;
    }

    /** Whether the alternate screen (modes 47, 1047, 1049) is active. */
    public boolean isAlternateScreen() {
        return emu.isAlt();
    }

    /**
     * The visible screen as plain text: one line per row, trailing spaces trimmed per line,
     * trailing empty lines dropped, rows joined by '\n' (no final newline). Wide characters appear
     * once, empty cells as spaces.
     */
    public String text() {
        String[] lines = new String[emu.rows];
        int last = -1;
        for (int y = 0; y < emu.rows; y++) {
            lines[y] = stripSpaces(emu.buf.line(y).text(true));
            if (!lines[y].isEmpty()) {
                last = y;
            }
        }
        return String.join("\n", Arrays.asList(lines).subList(0, last + 1));
    }

    /**
     * ANSI bytes that redraw this terminal on a fresh xterm.js (or ScreenModel) of the same size,
     * with up to 1000 lines of scrollback; see {@link #snapshot(int)}.
     */
    public byte[] snapshot() {
        return snapshot(1000);
    }

    /**
     * ANSI bytes that, written to a fresh terminal of the same size, reproduce the screen: up to
     * {@code scrollbackLines} of the most recent scrollback followed by the normal screen; then,
     * if the alternate screen is active, the alternate screen drawn on top of it; then the cursor
     * (position, visibility, style), the saved cursor, the scroll region, tab stops, character
     * sets, the current attributes, the title and the modes.
     */
    public byte[] snapshot(int scrollbackLines) {
        return new SnapshotWriter(emu).write(Math.max(scrollbackLines, 0));
    }
}
