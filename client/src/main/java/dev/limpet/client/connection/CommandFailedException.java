package dev.limpet.client.connection;

import dev.limpet.protocol.ServerMessage;

/** The daemon answered a request with {@code command_error}. */
public final class CommandFailedException extends RuntimeException {
    private final ServerMessage.CommandError error;

    public CommandFailedException(ServerMessage.CommandError error) {
        super(error.code() + ": " + error.message());
        this.error = error;
    }

    public ServerMessage.CommandError error() {
        return error;
    }

    /** The wire error code, e.g. {@code session_not_found}. */
    public String code() {
        return error.code();
    }
}
