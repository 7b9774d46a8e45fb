package dev.limpet.relay;

import dev.limpet.protocol.relay.RelayControlMessage;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A daemon's uplink on this relay: its host, what it sends, and the gate keys its daemon announced
 * (the relay keys of the host's pairings, {@link dev.limpet.protocol.relay.RelayGate}), the gate's
 * only knowledge. Until the daemon announced them the host counts as offline, never as refusing a
 * client's pairing. Callbacks of one socket run one at a time; the keys are read from any thread.
 */
final class UplinkSocket {
    private final String hostId;
    private final Outbound out;
    /** Pairing id → relay key; null until the daemon sent its {@code pairings}. */
    private volatile Map<String, byte[]> gateKeys;

    UplinkSocket(String hostId, Outbound out) {
        this.hostId = hostId;
        this.out = out;
    }

    String hostId() {
        return hostId;
    }

    /** The daemon's {@code pairings}: these keys replace the ones it sent before. Returns how many the gate now holds. */
    int gateKeys(List<RelayControlMessage.GateKey> keys) {
        Map<String, byte[]> m = new HashMap<>();
        keys.forEach(k -> m.put(k.id(), k.keyBytes()));
        gateKeys = Map.copyOf(m);
        return m.size();
    }

    /** The gate keys; null while the daemon has not announced them (the host is not ready). */
    Map<String, byte[]> gateKeys() {
        return gateKeys;
    }

    boolean ready() {
        return gateKeys != null;
    }

    /** One end-to-end message for the daemon, wrapped with its channel; false when the uplink was closed for falling behind. */
    boolean sendBinary(ByteBuffer envelope, Runnable written) {
        return out.sendBinary(envelope, written);
    }

    void send(RelayControlMessage message) {
        out.send(message);
    }

    void close(int status, String reason) {
        out.close(status, reason);
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
