package dev.limpet.client.cli;

import java.net.URI;

/**
 * Where a client verb finds a daemon: its base URL ({@code http://127.0.0.1:PORT/}), its token, a
 * name for messages, and its {@code daemon_instance_id} when known.
 */
public record DaemonEndpoint(String hostName, URI baseUrl, String token, String daemonInstanceId,
        dev.limpet.protocol.relay.PairingSecret relaySecret) {

    public DaemonEndpoint(String hostName, URI baseUrl, String token, String daemonInstanceId) {
        this(hostName, baseUrl, token, daemonInstanceId, null);
    }

    /** A host reached through a relay ({@code baseUrl} is then {@code http(s)://relay/h/<hostId>/}). */
    public boolean viaRelay() {
        return relaySecret != null;
    }

    /** The WebSocket URL of {@code /ws}. */
    public URI webSocketUrl() {
        String s = baseUrl.toString().replaceFirst("^http", "ws");
        return URI.create(s.endsWith("/") ? s + "ws" : s + "/ws");
    }

    @Override
    public String toString() {
        return hostName + " (" + baseUrl + ")";
    }
}
