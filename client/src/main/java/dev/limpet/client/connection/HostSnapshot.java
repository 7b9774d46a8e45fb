package dev.limpet.client.connection;

import java.util.List;

/**
 * The single source of truth for one host's connectivity, replaced as a whole on every change.
 *
 * @param generation bumped every time the active client is replaced
 * @param activeState the active client's machine state, null when there is none
 * @param attempt the active client's connection attempt number since it was last connected
 * @param lastFailure why the active client last lost or failed a connection, null if never
 * @param daemonInstanceId from the last {@code initial_state} of the active client, null before it
 * @param probes the latest probe results of the current generation, oldest first
 */
public record HostSnapshot(
        String host,
        HostState state,
        long generation,
        ConnectionState activeState,
        int attempt,
        TransportFailure lastFailure,
        String daemonInstanceId,
        List<ProbeResult> probes) {
    public HostSnapshot {
        probes = List.copyOf(probes);
    }
}
