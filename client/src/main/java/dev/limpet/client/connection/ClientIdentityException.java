package dev.limpet.client.connection;

/**
 * The client's identity or configuration cannot be used (an unreadable or corrupt key file, a broken
 * hosts.json). The message says which file and what to do; there is never a silent fallback.
 */
public final class ClientIdentityException extends RuntimeException {
    public ClientIdentityException(String message) {
        super(message);
    }

    public ClientIdentityException(String message, Throwable cause) {
        super(message, cause);
    }
}
