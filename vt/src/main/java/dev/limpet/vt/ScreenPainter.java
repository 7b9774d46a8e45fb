package dev.limpet.vt;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Keeps another terminal showing a model's screen, as tmux keeps the terminal of an attached
 * client: that terminal (a person's, in its alternate screen) is a display and nothing else. The
 * session's bytes never reach it, so nothing the program does (switching screens, resetting,
 * resizing the window, changing scroll regions) can leave it broken; what it shows is the model's
 * cells, attributes and cursor, and the modes that decide what the person's keys, mouse and paste
 * send (application cursor keys and keypad, mouse tracking, focus reports, bracketed paste), plus
 * the cursor's visibility and style and the title.
 *
 * <p>{@link #enter} takes the terminal over (title saved, alternate screen, cleared), each
 * {@link #paint} sends only the rows that changed since the last one, and {@link #leave} undoes
 * every mode a paint set and gives the terminal its own screen, cursor and title back. When the
 * model is larger than the display, the part around the cursor is shown; when it is smaller, the
 * rest of the display stays blank. A status line, when given, is drawn over the display's last row.
 *
 * <p>Not thread-safe: one thread paints (as for the model). The display is assumed to start with
 * its modes at their defaults (what a shell leaves while it runs a command).
 */
public final class ScreenPainter {
    private static final int BLANK = 1 << Attr.WIDTH_SHIFT;

    private int cols;
    private int rows;
    /** What each display row shows, as far as we know (null: unknown, repaint it). */
    private Line[] shown;
    /** The status text drawn over the last row, or null. */
    private String shownStatus;
    private int top;
    private int left;
    private long bellsSeen;
    /** The emulator whose bells {@link #bellsSeen} counts: a model that replaces it starts with its bells seen. */
    private Emulator bellsOf;
    /** The title we last set; null while we never set one. */
    private String title;
    private final Applied applied = new Applied();

    /** A painter for a display of {@code cols} × {@code rows}. */
    public ScreenPainter(int cols, int rows) {
        resize(cols, rows);
    }

    /** The display changed size: everything is painted again. */
    public void resize(int cols, int rows) {
        this.cols = Math.max(cols, 1);
        this.rows = Math.max(rows, 1);
        shown = new Line[this.rows];
        shownStatus = null;
    }

    /** The display's contents are unknown (something else wrote to it): the next paint redraws all. */
    public void invalidate() {
        Arrays.fill(shown, null);
        shownStatus = null;
    }

    /** Bytes that take the display over: its title saved, its alternate screen entered and cleared. */
    public byte[] enter() {
        invalidate();
        // Title stack push (xterm, tmux), the alternate screen (it saves the cursor), a clear with
        // the default background, and no autowrap: a row painted while the terminal is narrower
        // than we were told (a resize it has not finished) is cut at its edge, never wrapped into
        // the rows below (or scrolled at the bottom).
        return "\u001b[22;0t\u001b[?1049h\u001b[?7l\u001b[0m\u001b[H\u001b[2J".getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Bytes that give the display back: every mode a paint set is reset, the alternate screen is
     * left (restoring the screen and cursor the display had at {@link #enter}), the title popped.
     */
    public byte[] leave() {
        AnsiOut out = new AnsiOut(new Links());
        applied.restore(out);
        out.ascii("\u001b[0m\u001b[?7h\u001b[?1049l\u001b[23;0t");
        return out.toByteArray();
    }

    /**
     * Bytes that bring the display from what it shows to {@code model}'s screen, with
     * {@code status} (null for none) over its last row. Rings the display's bell when the
     * program rang since the last paint.
     */
    public byte[] paint(ScreenModel model, String status) {
        Emulator t = model.emu;
        AnsiOut out = new AnsiOut(t.links);
        Cursor cursor = model.cursor();
        int cx = Math.min(cursor.x(), t.cols - 1);
        top = follow(top, cursor.y(), t.rows, rows);
        left = follow(left, cx, t.cols, cols);
        boolean withStatus = status != null && rows >= 2;
        for (int r = 0; r < rows; r++) {
            if (withStatus && r == rows - 1) {
                if (!status.equals(shownStatus) || shown[r] != null) {
                    drawStatus(out, status);
                    shown[r] = null;
                    shownStatus = status;
                }
                continue;
            }
            Line want = displayRow(t, top + r);
            boolean statusGone = r == rows - 1 && shownStatus != null;
            if (statusGone || shown[r] == null || !sameCells(shown[r], want)) {
                out.cup(r, 0);
                out.pen(0, 0, 0, true);
                out.csi("2K");
                new LineWriter(out, cols, rows, true).write(want, null, false);
                shown[r] = want;
                if (statusGone) {
                    shownStatus = null;
                }
            }
        }
        // The next paint starts from the default pen and no open hyperlink.
        out.pen(0, 0, 0, false);
        int y = cursor.y() - top;
        int x = cx - left;
        boolean inView = y >= 0 && y < rows && x >= 0 && x < cols && !(withStatus && y == rows - 1);
        out.cup(Math.max(0, Math.min(y, rows - 1)), Math.max(0, Math.min(x, cols - 1)));
        applied.apply(out, model.modes(), cursor, inView);
        if (!model.title().equals(title)) { // the first paint sets it, even to none: the display shows the session's
            title = model.title();
            out.text("\u001b]2;" + title.replace("\u0007", "").replace("\u001b", "") + "\u001b\\");
        }
        if (t != bellsOf) {
            // A model that replaces the painted one (drawn from a snapshot, or rebuilt from one)
            // counts bells that rang on its predecessor, or none: nothing new rang.
            if (bellsOf != null) {
                bellsSeen = t.bells;
            }
            bellsOf = t;
        }
        if (t.bells != bellsSeen) {
            bellsSeen = t.bells;
            out.ascii("\u0007");
        }
        return out.toByteArray();
    }

    /** The origin of a window of {@code view} cells over {@code size} that keeps {@code at} inside it. */
    private static int follow(int origin, int at, int size, int view) {
        if (size <= view) {
            return 0;
        }
        if (at < origin) {
            origin = at;
        } else if (at >= origin + view) {
            origin = at - view + 1;
        }
        return Math.max(0, Math.min(origin, size - view));
    }

    /** Row {@code y} of the model as the display shows it: cropped at the viewport, blank outside. */
    private Line displayRow(Emulator t, int y) {
        Line row = Line.blank(cols, 0, 0, 0, false);
        if (y < 0 || y >= t.rows) {
            return row;
        }
        Line src = t.buf.line(y);
        int n = Math.min(cols, t.cols - left);
        row.copyCellsFrom(src, left, 0, n, false);
        if (n > 0 && left > 0 && src.width(left) == 0 && src.width(left - 1) == 2) {
            row.set(0, BLANK, 0, 0, 0, null); // the right half of a wide character cut by the viewport
        }
        if (n > 0 && left + n < t.cols && row.width(n - 1) == 2) {
            row.set(n - 1, BLANK, 0, 0, 0, null); // a wide character whose right half is cut off
        }
        return row;
    }

    private void drawStatus(AnsiOut out, String status) {
        out.cup(rows - 1, 0);
        out.pen(0, 0, 0, true);
        out.csi("2K");
        out.pen(Attr.INVERSE, 0, 0, true);
        int end = status.offsetByCodePoints(0, Math.min(status.codePointCount(0, status.length()), cols));
        out.text(status.substring(0, end).replaceAll("\\p{Cntrl}", " "));
        out.pen(0, 0, 0, true);
    }

    private boolean sameCells(Line a, Line b) {
        for (int i = 0; i < cols; i++) {
            if (a.content(i) != b.content(i) || a.fg(i) != b.fg(i) || a.bg(i) != b.bg(i) || a.extWord(i) != b.extWord(i)
                    || (a.content(i) & Attr.IS_COMBINED) != 0 && !a.combined(i).equals(b.combined(i))) {
                return false;
            }
        }
        return true;
    }

    /** The input modes and cursor the display has from us; all default until a paint changes one. */
    private static final class Applied {
        boolean applicationCursorKeys;
        boolean applicationKeypad;
        boolean bracketedPaste;
        boolean sendFocus;
        int mouseProtocol;
        int mouseEncoding;
        boolean cursorHidden;
        /** The DECSCUSR parameter we sent, 0 (the display's default) until then. */
        int cursorShape;

        void apply(AnsiOut out, TerminalModes m, Cursor cursor, boolean cursorInView) {
            if (m.applicationCursorKeys() != applicationCursorKeys) {
                applicationCursorKeys = m.applicationCursorKeys();
                out.csi(applicationCursorKeys ? "?1h" : "?1l");
            }
            if (m.applicationKeypad() != applicationKeypad) {
                applicationKeypad = m.applicationKeypad();
                out.ascii(applicationKeypad ? "\u001b=" : "\u001b>");
            }
            if (m.bracketedPaste() != bracketedPaste) {
                bracketedPaste = m.bracketedPaste();
                out.csi(bracketedPaste ? "?2004h" : "?2004l");
            }
            if (m.sendFocus() != sendFocus) {
                sendFocus = m.sendFocus();
                out.csi(sendFocus ? "?1004h" : "?1004l");
            }
            if (m.mouseTracking() != mouseProtocol) {
                if (mouseProtocol != Modes.MOUSE_NONE) {
                    out.csi("?" + mouseMode(mouseProtocol) + "l");
                }
                mouseProtocol = m.mouseTracking();
                if (mouseProtocol != Modes.MOUSE_NONE) {
                    out.csi("?" + mouseMode(mouseProtocol) + "h");
                }
            }
            if (m.mouseEncoding() != mouseEncoding) {
                if (mouseEncoding != Modes.ENC_DEFAULT) {
                    out.csi("?" + encodingMode(mouseEncoding) + "l");
                }
                mouseEncoding = m.mouseEncoding();
                if (mouseEncoding != Modes.ENC_DEFAULT) {
                    out.csi("?" + encodingMode(mouseEncoding) + "h");
                }
            }
            boolean hide = !cursor.visible() || !cursorInView;
            if (hide != cursorHidden) {
                cursorHidden = hide;
                out.csi(hide ? "?25l" : "?25h");
            }
            int shape = shape(cursor.style(), cursor.blink());
            if (shape != cursorShape) {
                cursorShape = shape;
                out.csi(shape + " q");
            }
        }

        /** Resets what {@link #apply} changed, to the display's defaults. */
        void restore(AnsiOut out) {
            apply(out, new TerminalModes(false, false, false, false, false, true, false, false, false, Modes.MOUSE_NONE,
                    Modes.ENC_DEFAULT, false), new Cursor(0, 0, true, Modes.STYLE_NONE, -1), true);
        }

        private static int shape(int style, int blink) {
            if (style == Modes.STYLE_NONE) {
                return 0;
            }
            int base = switch (style) {
                case Modes.STYLE_BLOCK -> 1;
                case Modes.STYLE_UNDERLINE -> 3;
                default -> 5;
            };
            return base + (blink == 1 ? 0 : 1);
        }

        private static int mouseMode(int protocol) {
            return switch (protocol) {
                case Modes.MOUSE_X10 -> 9;
                case Modes.MOUSE_VT200 -> 1000;
                case Modes.MOUSE_DRAG -> 1002;
                default -> 1003;
            };
        }

        private static int encodingMode(int encoding) {
            return encoding == Modes.ENC_SGR ? 1006 : 1016;
        }
    }
}
