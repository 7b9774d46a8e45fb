package dev.limpet.terminal.session;

import dev.limpet.protocol.ScreenDump;
import dev.limpet.vt.Cell;
import dev.limpet.vt.Cursor;
import dev.limpet.vt.ScreenModel;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's screen as a real VT emulator sees it: snapshots redraw full-screen programs exactly,
 * and capture prints what the screen shows.
 */
public final class VtScreen implements ScreenFeed {
    /** Scrollback lines the model keeps, and how many a snapshot sends above the screen. */
    public static final int SCROLLBACK_LINES = 1000;
    public static final int SNAPSHOT_SCROLLBACK_LINES = 500;

    private final ScreenModel model;

    public VtScreen(int cols, int rows) {
        this.model = ScreenModel.create(cols, rows, SCROLLBACK_LINES);
    }

    @Override
    public void feed(byte[] buf, int off, int len) {
        model.feed(buf, off, len);
    }

    @Override
    public void resize(int cols, int rows) {
        model.resize(cols, rows);
    }

    @Override
    public boolean bracketedPaste() {
        return model.modes().bracketedPaste();
    }

    @Override
    public byte[] snapshot() {
        return model.snapshot(SNAPSHOT_SCROLLBACK_LINES);
    }

    @Override
    public String title() {
        return model.title();
    }

    @Override
    public ScreenDump dump() {
        List<List<ScreenDump.Cell>> lines = new ArrayList<>(model.rows());
        for (int y = 0; y < model.rows(); y++) {
            List<ScreenDump.Cell> line = new ArrayList<>(model.cols());
            for (int x = 0; x < model.cols(); x++) {
                line.add(cell(model.cell(x, y)));
            }
            lines.add(line);
        }
        Cursor c = model.cursor();
        return new ScreenDump(model.cols(), model.rows(), c.x(), c.y(), c.visible(), model.isAlternateScreen(), model.title(), lines);
    }

    private static final String[] UNDERLINES = {"underline", "underline", "double-underline", "curly-underline", "dotted-underline",
        "dashed-underline"};

    private static ScreenDump.Cell cell(Cell c) {
        List<String> attrs = new ArrayList<>(2);
        flag(attrs, c, Cell.BOLD, "bold");
        flag(attrs, c, Cell.FAINT, "dim");
        flag(attrs, c, Cell.ITALIC, "italic");
        if (c.has(Cell.UNDERLINE)) {
            attrs.add(UNDERLINES[Math.min(Math.max(c.underlineStyle(), 1), UNDERLINES.length - 1)]);
        }
        flag(attrs, c, Cell.BLINK, "blink");
        flag(attrs, c, Cell.INVERSE, "inverse");
        flag(attrs, c, Cell.INVISIBLE, "invisible");
        flag(attrs, c, Cell.STRIKETHROUGH, "strikethrough");
        flag(attrs, c, Cell.OVERLINE, "overline");
        return new ScreenDump.Cell(c.chars(), c.width(), color(c.fg()), color(c.bg()), attrs);
    }

    private static void flag(List<String> attrs, Cell c, int flag, String name) {
        if (c.has(flag)) {
            attrs.add(name);
        }
    }

    private static String color(Cell.Color color) {
        return switch (color.mode()) {
            case Cell.Color.PALETTE16 -> "p16:" + color.value();
            case Cell.Color.PALETTE256 -> "p256:" + color.value();
            case Cell.Color.RGB -> String.format("rgb:%06x", color.value());
            default -> "default";
        };
    }

    @Override
    public String text() {
        // Programs often paint blank cells with explicit spaces (vim's "~" rows): trim them too.
        StringBuilder out = new StringBuilder();
        for (String line : model.text().split("\n", -1)) {
            out.append(line.stripTrailing()).append('\n');
        }
        String t = out.toString();
        int end = t.length();
        while (end > 0 && t.charAt(end - 1) == '\n') {
            end--;
        }
        return end == 0 ? "" : t.substring(0, end) + "\n";
    }
}
