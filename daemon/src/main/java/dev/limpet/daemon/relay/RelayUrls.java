package dev.limpet.daemon.relay;

import dev.limpet.protocol.relay.RelayControl;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The addresses of a relay, from the URL a person gives ({@code --relay}, http(s) or ws(s), with
 * an optional path prefix when the relay sits behind a proxy): where the daemon's uplink dials,
 * where a browser opens a host, and the relay's {@code /healthz}.
 */
public final class RelayUrls {
    private RelayUrls() {}

    /** {@code --relay}'s value: one URL, or several separated by commas (the nodes of a cluster, tried in order). */
    public static List<URI> parseList(String value) {
        List<URI> uris = new ArrayList<>();
        for (String part : value.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                throw new IllegalArgumentException("an empty URL in the list " + value);
            }
            URI uri = URI.create(p);
            uplinkUri(uri, "probe");
            uris.add(uri);
        }
        return List.copyOf(uris);
    }

    /** {@code ws(s)://host[:port][/prefix]/relay/uplink/<hostId>} from the relay's URL (http(s) or ws(s)). */
    public static URI uplinkUri(URI relay, String hostId) {
        String scheme = switch (relay.getScheme() == null ? "" : relay.getScheme().toLowerCase(Locale.ROOT)) {
            case "https", "wss" -> "wss";
            case "http", "ws" -> "ws";
            default -> throw new IllegalArgumentException("--relay must be an http(s):// or ws(s):// URL, not " + relay);
        };
        if (relay.getRawAuthority() == null) {
            throw new IllegalArgumentException("--relay must name a host: " + relay);
        }
        return URI.create(scheme + "://" + relay.getRawAuthority() + prefix(relay) + RelayControl.UPLINK_PATH + hostId);
    }

    /** The address a browser opens for this host: {@code http(s)://relay[/prefix]/h/<hostId>}. */
    public static URI clientBase(URI relay, String hostId) {
        return URI.create(httpBase(relay) + RelayControl.CLIENT_PATH_PREFIX + hostId);
    }

    /** {@code http(s)://host[:port][/prefix]/healthz} of a relay URL. */
    static URI healthUri(URI relay) {
        return URI.create(httpBase(relay) + "/healthz");
    }

    private static String httpBase(URI relay) {
        String scheme = switch (relay.getScheme().toLowerCase(Locale.ROOT)) {
            case "https", "wss" -> "https";
            default -> "http";
        };
        return scheme + "://" + relay.getRawAuthority() + prefix(relay);
    }

    private static String prefix(URI relay) {
        return relay.getRawPath() == null ? "" : relay.getRawPath().replaceAll("/+$", "");
    }
}
