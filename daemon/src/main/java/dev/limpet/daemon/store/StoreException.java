package dev.limpet.daemon.store;

/** The session store cannot be used. The message names the file, the error and what to do. */
public final class StoreException extends RuntimeException {
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
