package dev.limpet.client.connection;

import java.time.Duration;

/**
 * What one probe client found: the time from connect request to {@code initial_state}, or why it
 * failed. {@code probeNumber} orders probes of one runtime.
 */
public record ProbeResult(long probeNumber, long generation, boolean reachable, Duration latency, TransportFailure failure, String daemonInstanceId) {}
