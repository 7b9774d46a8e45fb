package dev.limpet.client.cli;

/** A client verb failed in a way the user should read; {@code exitCode} is what the process returns. */
public final class CliException extends RuntimeException {
    /** The daemon could not be reached or found. */
    public static final int NO_DAEMON = 1;
    /** The named session does not exist. */
    public static final int NO_SESSION = 2;
    /** Any other refusal (bad input, session not running…). */
    public static final int FAILED = 3;

    private final int exitCode;

    public CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
