package dev.limpet.protocol.relay;

import java.net.URI;
import java.util.Locale;

/**
 * The link {@code limpet pair} prints: {@code http(s)://<relay>[/prefix]/h/<hostId>#<secret>}. The
 * secret sits in the fragment, which browsers never send to the server: the relay serves the page
 * and never learns it. {@link #toString()} leaves the secret out.
 */
public record PairingLink(URI hostUrl, String hostId, PairingSecret secret) {

    public static PairingLink of(URI hostUrl, PairingSecret secret) {
        return parse(hostUrl + "#" + secret.encoded());
    }

    /** Reads a link; anything else is an {@link IllegalArgumentException} saying what is wrong (never quoting the secret). */
    public static PairingLink parse(String link) {
        String s = link == null ? "" : link.strip();
        int hash = s.indexOf('#');
        if (hash < 0) {
            throw new IllegalArgumentException("a pairing link ends with #<secret>; this one has no '#'");
        }
        URI url;
        try {
            url = URI.create(s.substring(0, hash).replaceAll("/+$", ""));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a pairing link starts with the relay's http(s):// address: " + e.getMessage());
        }
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || url.getRawAuthority() == null) {
            throw new IllegalArgumentException("a pairing link starts with the relay's http:// or https:// address");
        }
        String path = url.getRawPath() == null ? "" : url.getRawPath();
        int h = path.lastIndexOf(RelayControl.CLIENT_PATH_PREFIX);
        String hostId = h < 0 ? "" : path.substring(h + RelayControl.CLIENT_PATH_PREFIX.length());
        if (!hostId.matches(RelayControl.HOST_ID_PATTERN)) {
            throw new IllegalArgumentException("a pairing link's path ends with /h/<host id>; this one does not");
        }
        return new PairingLink(url, hostId, PairingSecret.parse(s.substring(hash + 1)));
    }

    /** The whole link, secret included: print it once, store it nowhere but the client. */
    public String link() {
        return hostUrl + "#" + secret.encoded();
    }

    @Override
    public String toString() {
        return hostUrl + "#…";
    }
}
