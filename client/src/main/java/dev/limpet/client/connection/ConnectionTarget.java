package dev.limpet.client.connection;

import java.net.URI;
import java.util.Locale;
import java.util.Objects;

/**
 * Where one host's daemon is reached: a display name, its base URL ({@code http://127.0.0.1:7420})
 * and the bearer token. {@link #toString()} never shows the token.
 */
public record ConnectionTarget(String hostName, URI baseUrl, String token) {
    public ConnectionTarget {
        Objects.requireNonNull(hostName, "hostName");
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(token, "token");
    }

    /** The WebSocket endpoint: {@code ws(s)://host:port/ws}, derived from the base URL. */
    public URI webSocketUri() {
        String scheme = switch (baseUrl.getScheme() == null ? "" : baseUrl.getScheme().toLowerCase(Locale.ROOT)) {
            case "https", "wss" -> "wss";
            case "http", "ws" -> "ws";
            default -> throw new IllegalArgumentException("unsupported URL scheme in " + baseUrl + " (use http:// or https://)");
        };
        String path = baseUrl.getRawPath() == null ? "" : baseUrl.getRawPath();
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        return URI.create(scheme + "://" + baseUrl.getRawAuthority() + path + "/ws");
    }

    @Override
    public String toString() {
        return "ConnectionTarget[" + hostName + " " + baseUrl + "]";
    }
}
