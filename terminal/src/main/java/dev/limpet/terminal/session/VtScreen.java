package dev.limpet.terminal.session;

import dev.limpet.vt.ScreenModel;

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
    public boolean canSnapshot() {
        return true;
    }

    @Override
    public boolean bracketedPaste() {
        return model.modes().bracketedPaste();
    }

    @Override
    public boolean inAlternateScreen() {
        return model.isAlternateScreen();
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
