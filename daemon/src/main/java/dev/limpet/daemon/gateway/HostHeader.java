package dev.limpet.daemon.gateway;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The daemon's rule for a request's {@code Host}, on every port it serves (the API and UI, and the
 * token-less metrics port): a page whose name was rebound to 127.0.0.1 still sends its own name,
 * so a name that is not ours is refused. A request with two Host headers is refused outright
 * (RFC 9112 says 400): checking one and letting a proxy or handler use the other would undo the
 * check.
 */
public final class HostHeader {
    /** What a request's Host headers say. */
    public enum Verdict {
        /** One Host naming this daemon, or none at all (HTTP/1.0, not a browser). */
        OURS,
        /** A name that is not this daemon's: refused with 403 {@code host_forbidden}. */
        FOREIGN,
        /** More than one Host header: refused with 400 {@code bad_request}. */
        AMBIGUOUS
    }

    private HostHeader() {}

    /**
     * Judges {@code values} (every Host header of one request) for a daemon listening on
     * {@code listenHost}; {@code allowedHosts} are the authorities of allow-listed origins (a
     * reverse proxy may pass its own Host on).
     */
    public static Verdict judge(List<String> values, String listenHost, Set<String> allowedHosts) {
        if (values.size() > 1) {
            return Verdict.AMBIGUOUS;
        }
        return values.isEmpty() || names(values.getFirst(), listenHost, allowedHosts) ? Verdict.OURS : Verdict.FOREIGN;
    }

    /**
     * Whether {@code host} names this daemon: a loopback name ({@code 127.0.0.1},
     * {@code localhost}, {@code [::1]}) or the listen address, on any port (an SSH tunnel or a
     * local proxy forwards from another one), or an allow-listed authority. On a wildcard listen
     * address the daemon cannot know its names and accepts any (the token still guards everything).
     */
    static boolean names(String host, String listenHost, Set<String> allowedHosts) {
        if (host == null) {
            return true;
        }
        String listen = listenHost.toLowerCase(Locale.ROOT);
        if (listen.equals("0.0.0.0") || listen.equals("::") || listen.equals("[::]")) {
            return true;
        }
        String h = host.strip().toLowerCase(Locale.ROOT);
        if (allowedHosts.contains(h)) {
            return true;
        }
        String name = h.matches(".*:[0-9]{1,5}") ? h.substring(0, h.lastIndexOf(':')) : h;
        String bracketed = listen.contains(":") && !listen.startsWith("[") ? "[" + listen + "]" : listen;
        return List.of("127.0.0.1", "localhost", "[::1]", bracketed).contains(name);
    }
}
