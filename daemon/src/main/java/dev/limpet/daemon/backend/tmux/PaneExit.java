package dev.limpet.daemon.backend.tmux;

import dev.limpet.terminal.pty.ExitStatus;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a tmux pane ends: its program exits (seen by polling: tmux keeps dead panes,
 * {@code remain-on-exit on}, with their status), its control client is lost for good (the server
 * or the session was killed: the session is lost, not exited), or limpet detaches from it. Each
 * completes the pane's exit once; the stream's readers are woken to see it.
 */
final class PaneExit {
    private static final Logger LOG = LoggerFactory.getLogger(PaneExit.class);
    /** Polls that may see the pane dead without a status before its exit is taken as unknown. */
    private static final int MAX_DEAD_POLLS = 20;

    private final String tmuxName;
    private final long pid;
    private final String target;
    private final PaneControl control;
    private final Runnable changed;
    private final CompletableFuture<ExitStatus> exit = new CompletableFuture<>();
    private volatile boolean ended;
    private volatile String endReason;
    private volatile boolean closed;
    private volatile boolean programExited;
    private volatile boolean pollPending;
    /** Polls that saw the pane dead without a status yet (the control client's reader thread only). */
    private int deadPolls;

    /** @param changed runs when the exit completed (the stream's readers look again) */
    PaneExit(String tmuxName, long pid, String target, PaneControl control, Runnable changed) {
        this.tmuxName = tmuxName;
        this.pid = pid;
        this.target = target;
        this.control = control;
        this.changed = changed;
    }

    /**
     * Asks tmux whether the program has ended (one command on the control client, no process);
     * called by the backend every few hundred milliseconds. A dead pane's exit code comes from
     * {@code #{pane_dead_status}}; a killing signal only from the line tmux writes on the dead
     * pane ("Pane is dead (signal 15, …)"; tmux 3.3 has no format for it).
     */
    void poll() {
        synchronized (this) {
            if (pollPending || exit.isDone() || ended) {
                return;
            }
            pollPending = true;
        }
        control.command("display-message -p -t " + target + " '#{pane_dead} #{pane_dead_status}'", r -> {
            String line = r.lines().isEmpty() ? "" : r.lines().getFirst().strip();
            if (!r.ok() || !line.startsWith("1")) {
                pollPending = false;
                return;
            }
            String status = line.substring(1).strip();
            if (!status.isEmpty()) {
                try {
                    exited(ExitStatus.exited(Integer.parseInt(status)));
                    return;
                } catch (IllegalArgumentException e) {
                    // read the pane's own words below
                }
            }
            // The pane reads as dead once its terminal closed; tmux may not have reaped the
            // program yet. Its words on the dead pane come with the reap.
            control.command("capture-pane -p -t " + target, c -> {
                ExitStatus seen = PaneScreen.deadStatus(c.lines());
                if (seen == null) {
                    seen = ZombieStatus.of(pid);
                }
                LOG.debug("tmux {}: dead pane without a status: {}", tmuxName, seen);
                if (seen != null) {
                    exited(seen);
                } else if (++deadPolls >= MAX_DEAD_POLLS) {
                    exited(new ExitStatus(-1, 0));
                } else {
                    pollPending = false;
                }
            });
        });
    }

    private void exited(ExitStatus status) {
        programExited |= exit.complete(status);
        pollPending = false;
        changed.run();
    }

    /** A new control client is coming: polls start again on it. */
    void reconnecting() {
        pollPending = false;
    }

    /** The control client ended with {@code reason}; true when that ends the pane (it was detached, or the program had exited). */
    boolean clientEnded(String reason) {
        endReason = reason;
        return closed || exit.isDone();
    }

    /** The pane is gone for good (its server or session was killed): readers see the end. */
    void giveUp(String reason) {
        endReason = reason;
        ended = true;
        exit.complete(new ExitStatus(-1, 0));
        changed.run();
    }

    /**
     * Detaches the control client (the tmux session lives on): readers see the end. Marked first,
     * so the client's end that follows is not taken for a lost link.
     */
    void detach() {
        closed = true;
        control.close();
        exit.complete(new ExitStatus(-1, 0));
        changed.run();
    }

    /** True once the control client ended without the program's exit being seen (server killed, session killed by hand). */
    boolean lost() {
        return ended && !closed && !programExited;
    }

    /** True once the pane was given up: its control client is gone for good. */
    boolean ended() {
        return ended;
    }

    boolean closed() {
        return closed;
    }

    String endReason() {
        return endReason;
    }

    boolean done() {
        return exit.isDone();
    }

    CompletableFuture<ExitStatus> future() {
        return exit;
    }

    Optional<ExitStatus> status() {
        return exit.isDone() ? Optional.of(exit.join()) : Optional.empty();
    }

    ExitStatus await() throws InterruptedException {
        try {
            return exit.get();
        } catch (ExecutionException e) {
            return new ExitStatus(-1, 0);
        }
    }
}
