package dev.limpet.client.connection;

import java.util.Objects;

/** A typed failure of one transport: the machine-readable reason plus a detail for people. */
public record TransportFailure(DisconnectReason reason, String detail) {
    public TransportFailure {
        Objects.requireNonNull(reason, "reason");
        detail = detail == null ? "" : detail;
    }

    public static TransportFailure of(DisconnectReason reason) {
        return new TransportFailure(reason, "");
    }

    @Override
    public String toString() {
        return detail.isEmpty() ? reason.wire() : reason.wire() + " (" + detail + ")";
    }
}
