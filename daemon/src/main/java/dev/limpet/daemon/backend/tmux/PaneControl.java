package dev.limpet.daemon.backend.tmux;

import java.io.IOException;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control client ({@link ControlClient}) a tmux pane talks to tmux through, and the one way
 * its parts send commands. A pane whose client ended while tmux still holds the session gets a
 * new one; a command sent while there is none is dropped (what it asked for is asked again: the
 * exit is polled, a repaint follows a reconnect).
 */
final class PaneControl {
    private static final Logger LOG = LoggerFactory.getLogger(PaneControl.class);
    /** How long a new control client may take to be attached before the pane gives up on it. */
    private static final Duration ATTACH_TIMEOUT = Duration.ofSeconds(20);

    private final String tmuxName;
    private volatile ControlClient client;

    PaneControl(String tmuxName) {
        this.tmuxName = tmuxName;
    }

    /**
     * Connects {@code c} once tmux has attached it, then sets it up (size, flow control). A spawn
     * releases the program only after this returns, so every byte it prints reaches the client as
     * {@code %output} (see {@link ControlClient#awaitAttached}).
     */
    void connect(ControlClient c, int cols, int rows, int pauseAfterSeconds) throws IOException {
        this.client = c;
        c.awaitAttached(ATTACH_TIMEOUT);
        c.command("refresh-client -C " + cols + "x" + rows);
        c.command("refresh-client -f pause-after=" + pauseAfterSeconds);
    }

    /** The client, for a command whose failure the caller must hear; {@code endReason} says why there is none. */
    ControlClient require(String endReason) throws IOException {
        ControlClient c = client;
        if (c == null || c.ended()) {
            throw new IOException("tmux session " + tmuxName + " has no control client" + (endReason != null ? " (" + endReason + ")" : ""));
        }
        return c;
    }

    void command(String line) {
        command(line, r -> { });
    }

    void command(String line, Consumer<ControlEvent.Reply> onReply) {
        ControlClient c = client;
        if (c == null) {
            return;
        }
        try {
            c.command(line, onReply);
        } catch (IOException e) {
            LOG.debug("tmux {}: cannot send '{}': {}", tmuxName, line, e.getMessage());
        }
    }

    /** Detaches the client; the tmux session lives on. */
    void close() {
        ControlClient c = client;
        if (c != null) {
            c.close();
        }
    }
}
