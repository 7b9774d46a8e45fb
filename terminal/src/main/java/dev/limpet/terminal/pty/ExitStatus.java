package dev.limpet.terminal.pty;

/**
 * How a child ended.
 *
 * @param exitCode the exit code (0–255), or -1 when killed by a signal
 * @param signal the signal that killed it, or 0 when it exited normally
 */
public record ExitStatus(int exitCode, int signal) {
    public ExitStatus {
        if (signal < 0 || (signal > 0 && exitCode != -1) || exitCode < -1 || exitCode > 255) {
            throw new IllegalArgumentException("invalid exit status: code " + exitCode + ", signal " + signal);
        }
    }

    public static ExitStatus exited(int exitCode) {
        return new ExitStatus(exitCode, 0);
    }

    public static ExitStatus killedBy(int signal) {
        return new ExitStatus(-1, signal);
    }

    /** Decodes a raw {@code waitpid} status (WIFEXITED/WIFSIGNALED). */
    public static ExitStatus fromWaitStatus(int status) {
        int termSignal = status & 0x7f;
        if (termSignal == 0) {
            return exited((status >> 8) & 0xff);
        }
        return killedBy(termSignal);
    }

    /** Whether a signal ended the child. */
    public boolean signaled() {
        return signal != 0;
    }

    /** {@code "exit 3"}, {@code "killed by SIGKILL"}; {@code "exit status unknown"} when the child was reaped elsewhere. */
    public String describe() {
        if (signaled()) {
            return "killed by " + Signal.describe(signal);
        }
        return exitCode >= 0 ? "exit " + exitCode : "exit status unknown";
    }
}
