package dev.limpet.terminal.pty;

import java.io.IOException;

/** A PTY could not be created or its child could not be started; the message says what failed and why. */
public class PtyException extends IOException {
    public PtyException(String message) {
        super(message);
    }

    public PtyException(String message, Throwable cause) {
        super(message, cause);
    }
}
