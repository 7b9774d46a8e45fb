package dev.limpet.daemon.gateway;

import dev.limpet.daemon.files.AuthToken;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Who may talk to the daemon: a request must carry the token (bearer header, {@code token} query
 * parameter, or a {@code limpet.token.<token>} WebSocket subprotocol); a browser's WebSocket
 * upgrade must also come from the daemon's own origin or an allow-listed one; and every request
 * must name the daemon in its {@code Host} (a page whose name was rebound to 127.0.0.1 names
 * itself).
 */
final class RequestAuth {
    static final String SUBPROTOCOL = "limpet.v1";
    static final String TOKEN_SUBPROTOCOL_PREFIX = "limpet.token.";

    private final AuthToken token;
    private final Set<String> allowedOrigins;
    /** The authorities ({@code host[:port]}) of the allow-listed origins: a reverse proxy may pass its own Host on. */
    private final Set<String> allowedHosts;

    RequestAuth(AuthToken token, Set<String> allowedOrigins) {
        this.token = token;
        this.allowedOrigins = Set.copyOf(allowedOrigins.stream().map(o -> o.toLowerCase(Locale.ROOT)).toList());
        this.allowedHosts = Set.copyOf(this.allowedOrigins.stream().map(o -> o.replaceFirst("^[a-z][a-z0-9+.-]*://", ""))
                .map(o -> o.endsWith("/") ? o.substring(0, o.length() - 1) : o).toList());
    }

    /** Whether one {@code Host} names this daemon ({@link HostHeader#names}). */
    boolean hostAllowed(String host, String listenHost, int port) {
        return HostHeader.names(host, listenHost, allowedHosts);
    }

    /** What every {@code Host} header of a request says ({@link HostHeader#judge}). */
    HostHeader.Verdict host(List<String> hostHeaders, String listenHost) {
        return HostHeader.judge(hostHeaders, listenHost, allowedHosts);
    }

    boolean authorized(String authorizationHeader, String tokenQuery, List<String> subprotocols) {
        if (authorizationHeader != null && authorizationHeader.regionMatches(true, 0, "Bearer ", 0, 7)
                && token.matches(authorizationHeader.substring(7))) {
            return true;
        }
        if (tokenQuery != null && token.matches(tokenQuery)) {
            return true;
        }
        for (String p : subprotocols) {
            for (String part : p.split(",")) {
                String s = part.strip();
                if (s.startsWith(TOKEN_SUBPROTOCOL_PREFIX) && token.matches(s.substring(TOKEN_SUBPROTOCOL_PREFIX.length()))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * No Origin (a non-browser client) is fine; otherwise it must be one of this daemon's own
     * origins (a loopback name or the listen address, on the daemon's port) or allow-listed. The
     * Origin is compared with these names, never with the Host header (which the page chooses).
     */
    boolean originAllowed(String origin, String listenHost, int port) {
        if (origin == null) {
            return true;
        }
        String o = origin.toLowerCase(Locale.ROOT);
        if (allowedOrigins.contains(o)) {
            return true;
        }
        for (String host : List.of("127.0.0.1", "localhost", "[::1]", listenHost.toLowerCase(Locale.ROOT))) {
            if (o.equals("http://" + host + ":" + port) || o.equals("https://" + host + ":" + port)) {
                return true;
            }
        }
        return false;
    }
}
