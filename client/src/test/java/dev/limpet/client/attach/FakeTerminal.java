package dev.limpet.client.attach;

import dev.limpet.vt.Cell;
import dev.limpet.vt.ScreenModel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The person's terminal: a terminal emulator of its own (the model the daemon uses) that shows what
 * the controller paints, so a test reads the screen a person would see.
 */
final class FakeTerminal implements AttachTerminal {
    final ByteArrayOutputStream written = new ByteArrayOutputStream();
    final List<String> notes = new ArrayList<>();
    final List<String> statuses = new ArrayList<>();
    int columns = 80;
    int rows = 24;
    boolean interactive = true;
    ScreenModel display = ScreenModel.create(columns, rows, 0);
    int bells;
    /** Closed, as the attach command closes it after the end: asking or writing then throws, as JLine does. */
    boolean closed;

    @Override
    public int columns() {
        checkOpen();
        return columns;
    }

    @Override
    public int rows() {
        checkOpen();
        return rows;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("Terminal has been closed");
        }
    }

    /** The window changed size (call the controller's {@code resized} after). */
    void resize(int cols, int rows) {
        this.columns = cols;
        this.rows = rows;
        display.resize(cols, rows);
    }

    @Override
    public void write(byte[] data) {
        checkOpen();
        written.writeBytes(data);
        display.feed(data);
        for (byte b : data) {
            bells += b == 7 ? 1 : 0;
        }
        String s = status();
        if (s != null && (statuses.isEmpty() || !statuses.getLast().equals(s))) {
            statuses.add(s);
        }
    }

    @Override
    public boolean interactive() {
        return interactive;
    }

    @Override
    public void note(String text) {
        notes.add(text);
    }

    /** What the screen shows, rows above a status line only. */
    String screenText() {
        String text = display.text();
        if (status() != null) {
            int last = text.lastIndexOf('\n');
            text = last < 0 ? "" : text.substring(0, last).stripTrailing();
        }
        return text;
    }

    /** The status line (the last row, drawn in reverse video), or null. */
    String status() {
        Cell first = display.cell(0, display.rows() - 1);
        if (!first.has(Cell.INVERSE)) {
            return null;
        }
        String text = display.text();
        String[] lines = text.split("\n", -1);
        return lines.length == display.rows() ? lines[lines.length - 1].strip() : null;
    }
}
