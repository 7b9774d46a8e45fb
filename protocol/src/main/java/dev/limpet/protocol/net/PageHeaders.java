package dev.limpet.protocol.net;

import java.util.Map;

/**
 * The headers every page limpet serves carries, the daemon's UI and the relay's alike: what the
 * browser may load and run (only the page's own files: no inline script, nothing from elsewhere),
 * where it may connect (its own origin), and that no other site may frame it (clickjacking a
 * terminal is typing into it).
 *
 * <p>Styles allow {@code 'unsafe-inline'} because xterm.js writes its cell metrics and theme into
 * {@code <style>} elements it creates; a style cannot run code, and scripts stay strictly
 * {@code 'self'}. The favicon is a {@code data:} URL. A page that must connect to another origin
 * (the daemon's own page reaching relays) widens {@code connect-src} through
 * {@link #withConnectSources}, never by hand.
 */
public final class PageHeaders {
    static final String CSP_WITHOUT_CONNECT = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            + "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    /** For a page that talks only to the origin that served it. */
    public static final Map<String, String> SAME_ORIGIN = withConnectSources("");

    private PageHeaders() {}

    /** The page headers with {@code extra} (space-separated origins, or empty) added to {@code connect-src 'self'}. */
    public static Map<String, String> withConnectSources(String extra) {
        String connect = extra.isBlank() ? "connect-src 'self'" : "connect-src 'self' " + extra.strip();
        return Map.of("Content-Security-Policy", CSP_WITHOUT_CONNECT + "; " + connect, "X-Frame-Options", "DENY", "X-Content-Type-Options",
                "nosniff", "Referrer-Policy", "no-referrer", "Cache-Control", "no-cache");
    }
}
