package dev.limpet.daemon.relay;

import java.net.http.WebSocketHandshakeException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What an uplink's failure says to a person (the log, {@code limpet status}), and whether the relay refused this host's credential. */
final class UplinkFailures {
    private UplinkFailures() {}

    static boolean refused(Throwable error) {
        Throwable c = unwrap(error);
        return c instanceof WebSocketHandshakeException h && h.getResponse() != null && h.getResponse().statusCode() == 401;
    }

    static String describe(Throwable error) {
        Throwable c = unwrap(error);
        if (c instanceof WebSocketHandshakeException h) {
            int status = h.getResponse() == null ? 0 : h.getResponse().statusCode();
            return status == 401 ? "the relay refused this host's credential (HTTP 401): check " + RelayCredential.FILE + " and the relay's hosts file"
                    : "the relay answered HTTP " + status;
        }
        return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
    }

    private static Throwable unwrap(Throwable e) {
        Throwable c = e;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
