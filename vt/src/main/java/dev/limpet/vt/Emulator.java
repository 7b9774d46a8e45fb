package dev.limpet.vt;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The terminal state machine behind {@link ScreenModel}: receives parser actions and applies
 * them to the buffers, following xterm.js' InputHandler. Printing, controls, escape sequences and
 * OSC live here; CSI sequences are in {@link CsiHandler}.
 */
final class Emulator implements ParserHandler {
    int cols;
    int rows;
    final int scrollback;
    final Parser parser = new Parser(this);
    final Modes modes = new Modes();
    final CsiHandler csi = new CsiHandler(this);
    ScreenBuffer normal;
    ScreenBuffer alt;
    ScreenBuffer buf;
    final Pen pen = new Pen();
    final Links links = new Links();
    private final Pen erasePen = new Pen();
    boolean cursorHidden;
    /** BEL characters executed so far (a display rings its own bell for them). */
    long bells;
    /** DECSET 12 (an option in xterm.js, survives resets). */
    boolean cursorBlinkOption;
    /** LNM (mode 20): LF also returns the carriage. */
    boolean convertEol;
    String title = "";
    String iconName = "";
    final ArrayDeque<String> titleStack = new ArrayDeque<>();
    final ArrayDeque<String> iconStack = new ArrayDeque<>();
    // character sets
    int glevel;
    final int[][] gsets = new int[4][];
    int[] charset;

    Emulator(int cols, int rows, int scrollback) {
        this.cols = Math.max(cols, 2);
        this.rows = Math.max(rows, 1);
        this.scrollback = scrollback;
        resetBuffers();
    }

    void resetBuffers() {
        normal = new ScreenBuffer(true, scrollback, cols, rows);
        normal.fillViewportRows(new Pen());
        alt = new ScreenBuffer(false, 0, cols, rows);
        buf = normal;
    }

    /** RIS: what xterm.js' Terminal.reset() does. */
    void fullReset() {
        parser.reset();
        pen.reset();
        erasePen.reset();
        resetBuffers();
        charset = null;
        glevel = 0;
        Arrays.fill(gsets, null);
        modes.reset();
        modes.mouseProtocol = Modes.MOUSE_NONE;
        modes.mouseEncoding = Modes.ENC_DEFAULT;
    }

    boolean isAlt() {
        return buf == alt;
    }

    Pen erasePen() {
        erasePen.fg = 0;
        erasePen.ext = 0;
        erasePen.link = 0;
        erasePen.bg = pen.bg & ~0xFC000000;
        return erasePen;
    }

    @Override
    public void print(int[] data, int start, int end) {
        Printer.print(this, data, start, end);
    }

    @Override
    public void execute(int code) {
        switch (code) {
            case 0x0A, 0x0B, 0x0C -> lineFeed();
            case 0x0D -> buf.x = 0;
            case 0x08 -> backspace();
            case 0x09 -> {
                if (buf.x < cols) {
                    buf.x = buf.nextStop(buf.x);
                }
            }
            case 0x0E -> setgLevel(1);
            case 0x0F -> setgLevel(0);
            case 0x84 -> index();
            case 0x85 -> nextLine();
            case 0x88 -> buf.tabs.set(buf.x);
            case 0x07 -> bells++;
            default -> {
                // others: no screen effect
            }
        }
    }

    void lineFeed() {
        ScreenBuffer b = buf;
        if (convertEol) {
            b.x = 0;
        }
        b.y++;
        if (b.y == b.scrollBottom + 1) {
            b.y--;
            b.scroll(erasePen(), false);
        } else if (b.y >= rows) {
            b.y = rows - 1;
        } else {
            b.lines.get(b.ybase + b.y).wrapped = false;
        }
        if (b.x >= cols) {
            b.x--;
        }
    }

    private void backspace() {
        ScreenBuffer b = buf;
        if (!modes.reverseWraparound) {
            restrictCursor(cols - 1);
            if (b.x > 0) {
                b.x--;
            }
            return;
        }
        restrictCursor(cols);
        if (b.x > 0) {
            b.x--;
        } else if (b.x == 0 && b.y > b.scrollTop && b.y <= b.scrollBottom && b.line(b.y).wrapped) {
            b.line(b.y).wrapped = false;
            b.y--;
            b.x = cols - 1;
            Line line = b.line(b.y);
            if ((line.content(b.x) & Attr.WIDTH_MASK) != 0 && !line.hasContent(b.x)) {
                b.x--;
            }
        }
        restrictCursor(cols - 1);
    }

    void restrictCursor(int maxCol) {
        ScreenBuffer b = buf;
        b.x = Math.min(maxCol, Math.max(0, b.x));
        b.y = modes.origin
                ? Math.min(b.scrollBottom, Math.max(b.scrollTop, b.y))
                : Math.min(rows - 1, Math.max(0, b.y));
    }

    void restrictCursor() {
        restrictCursor(cols - 1);
    }

    void setCursor(long x, long y) {
        buf.x = clampInt(x);
        buf.y = clampInt(modes.origin ? buf.scrollTop + y : y);
        restrictCursor();
    }

    private static int clampInt(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    void moveCursor(long dx, long dy) {
        restrictCursor();
        setCursor(buf.x + dx, buf.y + dy); // xterm.js adds scrollTop again in origin mode
    }

    void index() {
        restrictCursor();
        ScreenBuffer b = buf;
        b.y++;
        if (b.y == b.scrollBottom + 1) {
            b.y--;
            b.scroll(erasePen(), false);
        } else if (b.y >= rows) {
            b.y = rows - 1;
        }
        restrictCursor();
    }

    private void nextLine() {
        buf.x = 0;
        index();
    }

    private void reverseIndex() {
        restrictCursor();
        ScreenBuffer b = buf;
        if (b.y == b.scrollTop) {
            int height = b.scrollBottom - b.scrollTop;
            b.lines.shiftElements(b.ybase + b.y, height, 1);
            b.lines.set(b.ybase + b.y, b.blankLine(erasePen(), false));
        } else {
            b.y--;
            restrictCursor();
        }
    }

    void saveCursor() {
        ScreenBuffer b = buf;
        b.savedX = b.x;
        b.savedY = b.ybase + b.y;
        b.savedFg = pen.fg;
        b.savedBg = pen.bg;
        b.savedCharset = charset;
    }

    void restoreCursor() {
        ScreenBuffer b = buf;
        b.x = b.savedX;
        b.y = Math.max(b.savedY - b.ybase, 0);
        pen.fg = b.savedFg;
        pen.bg = b.savedBg;
        charset = b.savedCharset;
        restrictCursor();
    }

    void setgLevel(int g) {
        glevel = g;
        charset = gsets[g];
    }

    void setgCharset(int g, int[] set) {
        gsets[g] = set;
        if (glevel == g) {
            charset = set;
        }
    }

    void activateAlt() {
        if (buf == alt) {
            return;
        }
        alt.fillViewportRows(erasePen());
        alt.x = normal.x;
        alt.y = normal.y;
        buf = alt;
    }

    void activateNormal() {
        if (buf == normal) {
            return;
        }
        normal.x = alt.x;
        normal.y = alt.y;
        alt.clear();
        buf = normal;
    }

    @Override
    public void csi(int ident, Params params) {
        csi.dispatch(ident, params);
    }

    @Override
    public void esc(int ident) {
        switch (ident) {
            case '7' -> saveCursor();
            case '8' -> restoreCursor();
            case 'D' -> index();
            case 'E' -> nextLine();
            case 'H' -> buf.tabs.set(buf.x);
            case 'M' -> reverseIndex();
            case '=' -> modes.applicationKeypad = true;
            case '>' -> modes.applicationKeypad = false;
            case 'c' -> fullReset();
            case 'n', '}' -> setgLevel(2);
            case 'o', '|' -> setgLevel(3);
            case '~' -> setgLevel(1);
            case '%' << 8 | '@', '%' << 8 | 'G' -> {
                setgLevel(0);
                setgCharset(0, null);
            }
            case '#' << 8 | '8' -> alignmentPattern();
            default -> designate(ident);
        }
    }

    private void designate(int ident) {
        int inter = ident >> 8;
        int fin = ident & 0xFF;
        if (inter < 0x28 || inter > 0x2F || inter == 0x2C || Charsets.DESIGNATORS.indexOf(fin) < 0) {
            return;
        }
        int g = switch (inter) {
            case '(' -> 0;
            case ')', '-' -> 1;
            case '*', '.' -> 2;
            case '+' -> 3;
            default -> -1; // '/' is accepted and ignored
        };
        if (g >= 0) {
            setgCharset(g, Charsets.forDesignator(fin));
        }
    }

    private void alignmentPattern() {
        setCursor(0, 0);
        for (int yOff = 0; yOff < rows; ++yOff) {
            int row = buf.ybase + buf.y + yOff;
            if (row < buf.lines.length()) {
                Line line = buf.lines.get(row);
                for (int i = 0; i < line.length; i++) {
                    line.set(i, 'E' | 1 << Attr.WIDTH_SHIFT, pen.fg, pen.bg, 0, null);
                }
                line.wrapped = false;
            }
        }
        setCursor(0, 0);
    }

    /** OSC 8 ; params ; uri: opens (non-empty uri) or closes (empty) a hyperlink. */
    private void hyperlink(String data) {
        int idx = data.indexOf(';');
        if (idx < 0) {
            return;
        }
        String params = data.substring(0, idx).strip();
        String uri = data.substring(idx + 1);
        if (!uri.isEmpty()) {
            String id = null;
            for (String p : params.split(":", -1)) {
                if (p.startsWith("id=")) {
                    id = p.length() > 3 ? p.substring(3) : null;
                    break;
                }
            }
            pen.link = links.register(id, uri, this);
            pen.updateExtended();
        } else if (params.isEmpty()) {
            pen.link = 0;
            pen.updateExtended();
        }
    }

    @Override
    public void osc(int id, String payload) {
        switch (id) {
            case 0 -> {
                title = payload;
                iconName = payload;
            }
            case 1 -> iconName = payload;
            case 2 -> title = payload;
            case 8 -> hyperlink(payload);
            default -> {
                // colours, hyperlinks and others are not modelled
            }
        }
    }
}
