package dev.limpet.client.attach;

import dev.limpet.vt.ScreenModel;
import dev.limpet.vt.ScreenPainter;
import java.io.ByteArrayOutputStream;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What {@code limpet attach} shows, as tmux shows a pane: the session's screen kept in a model of
 * its own (the emulator the daemon and the browser use), built from the daemon's snapshot and the
 * output that follows, and painted onto the person's terminal ({@link ScreenPainter}) in its
 * alternate screen. The session's bytes never reach that terminal, so nothing a program does can
 * leave it in a state that outlives the attach; {@link #leave} gives it back as it was.
 *
 * <p>The model has the session's size; the person's terminal may be larger (the rest stays blank)
 * or smaller (the part around the cursor is shown). A status line, when set, covers its last row.
 *
 * <p>When the output is no terminal (a pipe, a file), the session's bytes are written as they
 * come instead ({@link #raw}) and status messages go to a line of their own.
 *
 * <p>Thread contract: every method may be called from any thread (the attach loop paints, a
 * shutdown hook leaves); they are synchronized, and nothing is written after {@link #leave}.
 */
final class AttachScreen {
    /** Output kept since the mark; past it the model is marked afresh (a resize announced that late is taken in at once). */
    private static final int MAX_SINCE_MARK = 1 << 20;

    private final Consumer<byte[]> display;
    /** Null when raw. */
    private final ScreenPainter painter;
    private final Consumer<String> notes;
    private ScreenModel model;
    /**
     * The model as of the last snapshot or resize (bytes that redraw it, and its size) and the
     * output fed to it since: what a resize announced after output past its offset is taken in
     * with, at its place (see {@link #sessionResizedEarlier}).
     */
    private byte[] mark = new byte[0];
    private int markCols = 80;
    private int markRows = 24;
    private final ByteArrayOutputStream sinceMark = new ByteArrayOutputStream();
    private String status;
    private boolean entered;
    private boolean left;

    private AttachScreen(ScreenPainter painter, Consumer<byte[]> display, Consumer<String> notes) {
        this.display = display;
        this.painter = painter;
        this.notes = notes;
        this.model = ScreenModel.create(80, 24, 0);
    }

    /** A screen painted on a terminal of {@code cols}×{@code rows}; {@code display} writes to it. */
    static AttachScreen painted(int cols, int rows, Consumer<byte[]> display) {
        return new AttachScreen(new ScreenPainter(cols, rows), display, text -> { });
    }

    /** The session's bytes written as they come (no terminal to paint on); status lines go to {@code notes}. */
    static AttachScreen raw(Consumer<byte[]> display, Consumer<String> notes) {
        return new AttachScreen(null, display, notes);
    }

    /** Takes the display over (its alternate screen); once. */
    synchronized void enter() {
        if (entered || left) {
            return;
        }
        entered = true;
        if (painter != null) {
            display.accept(painter.enter());
        }
    }

    /** Gives the display back (modes, screen, cursor, title as they were); once, and nothing is drawn after it. */
    synchronized void leave() {
        if (!entered || left) {
            left = true;
            return;
        }
        left = true;
        if (painter != null) {
            display.accept(painter.leave());
        }
    }

    /** The session's screen as of a snapshot: a fresh model of the session's size, fed it, painted. */
    synchronized void snapshot(int cols, int rows, byte[] snapshot) {
        if (painter == null) {
            write(snapshot);
            return;
        }
        model = ScreenModel.create(Math.max(cols, 1), Math.max(rows, 1), 0);
        model.feed(snapshot);
        mark();
        paint();
    }

    /** Output of the session, painted; {@code queries} (terminal queries in it) then go to the display as they are. */
    synchronized void output(byte[] bytes, byte[] queries) {
        if (painter == null) {
            write(bytes);
            return;
        }
        model.feed(bytes);
        if (sinceMark.size() + bytes.length > MAX_SINCE_MARK) {
            mark();
        } else {
            sinceMark.writeBytes(bytes);
        }
        paint();
        write(queries);
    }

    /** The session's size changed (at this point of its output). */
    synchronized void sessionResized(int cols, int rows) {
        if (painter != null && (cols != model.cols() || rows != model.rows())) {
            model.resize(cols, rows);
            mark();
            paint();
        }
    }

    /**
     * The session's size changed before the last {@code bytesAgo} bytes of output, which were
     * taken in at the old size: the model is built again from the mark, resized at that place.
     * Resized now when the output since the mark does not reach back that far.
     */
    synchronized void sessionResizedEarlier(int cols, int rows, long bytesAgo) {
        int held = sinceMark.size();
        if (painter == null || bytesAgo <= 0 || bytesAgo > held) {
            sessionResized(cols, rows);
            return;
        }
        byte[] since = sinceMark.toByteArray();
        int at = held - (int) bytesAgo;
        ScreenModel rebuilt = ScreenModel.create(markCols, markRows, 0);
        rebuilt.feed(mark);
        rebuilt.feed(since, 0, at);
        rebuilt.resize(Math.max(cols, 1), Math.max(rows, 1));
        rebuilt.feed(since, at, held - at);
        model = rebuilt;
        mark();
        paint();
    }

    /** The person's terminal changed size. */
    synchronized void displayResized(int cols, int rows) {
        if (painter != null) {
            painter.resize(cols, rows);
            paint();
        }
    }

    /** Shows {@code text} over the display's last row; null removes it. */
    synchronized void status(String text) {
        if (Objects.equals(text, status)) {
            return;
        }
        status = text;
        if (painter == null) {
            if (text != null && !left) {
                notes.accept(text);
            }
            return;
        }
        paint();
    }

    /** Rings the display's bell (a key was refused). */
    synchronized void bell() {
        write(new byte[] {7});
    }

    synchronized int sessionCols() {
        return model.cols();
    }

    synchronized int sessionRows() {
        return model.rows();
    }

    private void mark() {
        mark = model.snapshot(0);
        markCols = model.cols();
        markRows = model.rows();
        sinceMark.reset();
    }

    private void paint() {
        if (entered && !left) {
            display.accept(painter.paint(model, status));
        }
    }

    private void write(byte[] bytes) {
        if (bytes.length > 0 && entered && !left) {
            display.accept(bytes);
        }
    }
}
