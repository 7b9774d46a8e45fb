package dev.limpet.client.attach;

/**
 * How {@code limpet attach} ended: the process exit code and the line to print after the terminal is
 * restored ({@code [detached from ID]}, {@code [session ID exited: 0]}, or an error for stderr).
 */
public record AttachOutcome(int exitCode, String message, boolean error) {
    public static AttachOutcome success(String message) {
        return new AttachOutcome(0, message, false);
    }

    public static AttachOutcome failure(int exitCode, String message) {
        return new AttachOutcome(exitCode, message, true);
    }
}
