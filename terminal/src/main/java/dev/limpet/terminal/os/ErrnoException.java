package dev.limpet.terminal.os;

import java.io.IOException;

/** A system call failed; the message names the operation and the error, e.g. {@code "kill(-42, SIGHUP): Operation not permitted (EPERM)"}. */
public class ErrnoException extends IOException {
    private final int errno;

    public ErrnoException(String operation, int errno) {
        super(operation + ": " + Errno.describe(errno));
        this.errno = errno;
    }

    /** The raw errno value (see {@link Errno}). */
    public int errno() {
        return errno;
    }
}
