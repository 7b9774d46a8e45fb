package dev.limpet.client.attach;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import org.jline.terminal.Attributes;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/**
 * The person's terminal through JLine, in raw mode. JLine's {@code enterRawMode()} leaves ISIG on
 * (Ctrl-C would kill us instead of reaching the session), so ISIG, IEXTEN, IXON, ICRNL and OPOST are
 * cleared here as well: every byte typed goes to the session unchanged, every byte of output reaches
 * the screen unchanged. {@link #close()} restores the attributes the terminal had before.
 *
 * <p>What is shown on it is painted by {@link AttachScreen}; this class only moves bytes and sizes.
 */
public final class JLineAttachTerminal implements AttachTerminal, AutoCloseable {
    private final Terminal terminal;
    private final Attributes saved;
    private final OutputStream out;
    private final PrintStream err;
    private boolean closed;

    private JLineAttachTerminal(Terminal terminal, Attributes saved, PrintStream err) {
        this.terminal = terminal;
        this.saved = saved;
        this.out = terminal.output();
        this.err = err;
    }

    /** Opens the process's terminal and puts it in raw mode. */
    public static JLineAttachTerminal open(PrintStream err) throws IOException {
        Terminal terminal = TerminalBuilder.builder().system(true).dumb(true).build();
        Attributes saved = terminal.enterRawMode();
        Attributes raw = new Attributes(terminal.getAttributes());
        raw.setLocalFlag(Attributes.LocalFlag.ISIG, false);
        raw.setLocalFlag(Attributes.LocalFlag.IEXTEN, false);
        raw.setLocalFlag(Attributes.LocalFlag.ICANON, false);
        raw.setLocalFlag(Attributes.LocalFlag.ECHO, false);
        raw.setInputFlag(Attributes.InputFlag.IXON, false);
        raw.setInputFlag(Attributes.InputFlag.ICRNL, false);
        raw.setInputFlag(Attributes.InputFlag.INLCR, false);
        raw.setInputFlag(Attributes.InputFlag.IGNCR, false);
        raw.setOutputFlag(Attributes.OutputFlag.OPOST, false);
        raw.setControlChar(Attributes.ControlChar.VMIN, 1);
        raw.setControlChar(Attributes.ControlChar.VTIME, 0);
        terminal.setAttributes(raw);
        return new JLineAttachTerminal(terminal, saved, err);
    }

    /**
     * Raw bytes typed by the person, straight from file descriptor 0. Not JLine's {@code input()}:
     * its reader holds a lock while blocked in {@code read}, and {@code Terminal.close()} waits for
     * that lock, so closing the terminal would hang until the next key press.
     */
    public InputStream input() {
        return new FileInputStream(FileDescriptor.in);
    }

    /** Calls {@code onResize} whenever the window changes size (SIGWINCH). */
    public void onResize(Runnable onResize) {
        terminal.handle(Terminal.Signal.WINCH, signal -> onResize.run());
    }

    /** True when this is a real terminal rather than a pipe. */
    @Override
    public boolean interactive() {
        return !terminal.getType().startsWith(Terminal.TYPE_DUMB);
    }

    @Override
    public int columns() {
        int c = terminal.getWidth();
        return c > 0 ? Math.min(c, 1000) : 80;
    }

    @Override
    public int rows() {
        int r = terminal.getHeight();
        return r > 0 ? Math.min(r, 1000) : 24;
    }

    @Override
    public void write(byte[] data) {
        try {
            out.write(data);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to the terminal", e);
        }
    }

    @Override
    public void note(String text) {
        err.print(text + "\r\n");
        err.flush();
    }

    /** Restores the terminal's original attributes; once, from any thread (a shutdown hook too). */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        terminal.setAttributes(saved);
        terminal.flush();
        terminal.close();
    }
}
