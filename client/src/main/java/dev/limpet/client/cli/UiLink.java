package dev.limpet.client.cli;

/**
 * The web UI's address with the token in its fragment ({@code http://127.0.0.1:7420/#token=…}):
 * what {@code limpet daemon} prints and {@code limpet open} opens. Browsers never send a fragment
 * to the server, and the page removes it from the address bar at once.
 */
public final class UiLink {
    private UiLink() {}

    public static String withToken(DaemonEndpoint endpoint) {
        return endpoint.baseUrl() + "#token=" + endpoint.token();
    }
}
