package dev.limpet.workerapi.rpc;

import java.util.Locale;

/** The canonical worker RPC error codes. An unknown code read from a newer peer becomes {@link #INTERNAL_ERROR}. */
public enum WorkerErrorCode {
    BAD_REQUEST,
    UNSUPPORTED_VERSION,
    UNAUTHORIZED,
    SESSION_NOT_FOUND,
    SESSION_NOT_RUNNING,
    IO_ERROR,
    INTERNAL_ERROR;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static WorkerErrorCode fromWire(String wire) {
        if (wire == null) {
            return INTERNAL_ERROR;
        }
        try {
            return valueOf(wire.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return INTERNAL_ERROR;
        }
    }
}
