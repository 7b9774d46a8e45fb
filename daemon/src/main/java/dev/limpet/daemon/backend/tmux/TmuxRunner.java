package dev.limpet.daemon.backend.tmux;

import java.io.IOException;
import java.util.List;

/**
 * How the backend runs tmux: one-shot commands and control-mode clients. An interface so tests
 * can fault it (a tmux that fails, hangs or answers nonsense); {@link TmuxProcesses} runs the
 * real one.
 */
interface TmuxRunner {

    /** What a one-shot tmux command printed and how it ended. */
    record Result(int exitCode, String out, String err) {
        boolean ok() {
            return exitCode == 0;
        }

        /** The error tmux printed, for messages: stderr, else stdout, else the exit code. */
        String why() {
            String e = err.isBlank() ? out.strip() : err.strip();
            return e.isEmpty() ? "tmux exited with " + exitCode : e;
        }
    }

    /**
     * Runs {@code tmux <args>} and waits for it (bounded).
     *
     * @throws IOException when tmux cannot be started or does not finish in time
     */
    Result run(List<String> args) throws IOException;

    /** Starts {@code tmux <args>} with its stdin and stdout as pipes (a control-mode client). */
    Process start(List<String> args) throws IOException;
}
