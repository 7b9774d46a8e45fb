package dev.limpet.daemon.gateway;

import java.util.List;
import java.util.Objects;

/**
 * Another host the daemon's user reaches (an entry of their hosts.json), as the daemon's own page
 * gets it from {@code GET /api/hosts} to connect to it itself: directly ({@code url} + {@code token})
 * or through a relay ({@code url}: the pairing's address {@code https://relay/h/<hostId>} +
 * {@code secret}: the pairing secret, base64url). The page holds the daemon's token already; with
 * these it reaches every host of the same user, and the end-to-end crypto of relayed hosts runs in
 * the page this daemon served, never in code a relay served (docs/security.md).
 */
public record CockpitHost(String name, String kind, String url, String token, String secret) {
    public static final String DIRECT = "direct";
    public static final String RELAY = "relay";

    public CockpitHost {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(url, "url");
        if (DIRECT.equals(kind) ? token == null || secret != null : !RELAY.equals(kind) || secret == null || token != null) {
            throw new IllegalArgumentException("a direct host has a token, a relayed one a secret");
        }
    }

    public static CockpitHost direct(String name, String url, String token) {
        return new CockpitHost(name, DIRECT, url, token, null);
    }

    public static CockpitHost relay(String name, String url, String secret) {
        return new CockpitHost(name, RELAY, url, null, secret);
    }

    /** What the hosts file holds, read afresh on each request (the file's trust checks run on every read). */
    @FunctionalInterface
    public interface Source {
        /** The hosts, and a line per entry or file that could not be read. */
        Listing read();
    }

    public record Listing(List<CockpitHost> hosts, List<String> problems) {
        public static final Listing NONE = new Listing(List.of(), List.of());

        public Listing {
            hosts = List.copyOf(hosts);
            problems = List.copyOf(problems);
        }
    }
}
