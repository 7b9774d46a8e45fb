package dev.limpet.relay;

import java.util.HashMap;
import java.util.Map;

/**
 * Who may wait at a host's gate (a client socket that has not yet proved a pairing), kept apart
 * from the capacity for proven clients: strangers who know a host id can fill the gate's own
 * places, never those of paired clients, and one source address holds only a few places at once.
 * Together with a gate timeout of one round trip's worth, a paired client still gets in while
 * an address floods. Thread-safe (one lock; the critical sections are a few map operations).
 */
final class GateAdmission {
    /** Why a socket may not wait at the gate. */
    enum Verdict {
        ADMITTED,
        /** This address already has its share of sockets at gates. */
        ADDRESS_BUSY,
        /** The host's gate is full of sockets from many addresses. */
        GATE_FULL
    }

    private final int perAddress;
    private final int perHost;
    private final Map<String, Integer> byAddress = new HashMap<>();
    private final Map<String, Integer> byHost = new HashMap<>();

    GateAdmission(int perAddress, int perHost) {
        this.perAddress = perAddress;
        this.perHost = perHost;
    }

    /** Takes a place at {@code host}'s gate for {@code address}, or says why not; an admitted socket must {@link #leave} once. */
    synchronized Verdict enter(String host, String address) {
        if (byAddress.getOrDefault(address, 0) >= perAddress) {
            return Verdict.ADDRESS_BUSY;
        }
        if (byHost.getOrDefault(host, 0) >= perHost) {
            return Verdict.GATE_FULL;
        }
        byAddress.merge(address, 1, Integer::sum);
        byHost.merge(host, 1, Integer::sum);
        return Verdict.ADMITTED;
    }

    /** Whether {@link #enter} would admit now (an early answer before the WebSocket upgrade; {@code enter} decides). */
    synchronized Verdict peek(String host, String address) {
        if (byAddress.getOrDefault(address, 0) >= perAddress) {
            return Verdict.ADDRESS_BUSY;
        }
        return byHost.getOrDefault(host, 0) >= perHost ? Verdict.GATE_FULL : Verdict.ADMITTED;
    }

    /** Gives back the place a socket took: it passed, failed or left the gate. */
    synchronized void leave(String host, String address) {
        byAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
        byHost.computeIfPresent(host, (h, n) -> n <= 1 ? null : n - 1);
    }

    synchronized int atGate(String host) {
        return byHost.getOrDefault(host, 0);
    }
}
