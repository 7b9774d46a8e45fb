package dev.limpet.daemon.relay;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.protocol.relay.RelayControlMessage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Keeps the relay's gate in step with this host's pairings: the relay keys of every pairing (never
 * their secrets) are announced on each uplink open and whenever they change, so a revoked
 * pairing's clients are stopped at the relay from then on and a new one's let through; the
 * channels a revoked pairing still has here are closed.
 */
final class GateAnnouncer {
    private final Pairings pairings;
    private final UplinkSender sender;
    /** The pairing ids last announced on the current uplink; null: not yet. */
    private volatile Set<String> announced;

    GateAnnouncer(Pairings pairings, UplinkSender sender) {
        this.pairings = pairings;
        this.sender = sender;
    }

    /** A new uplink: the gate learns every key, changed or not. */
    void announceAll() {
        announce(pairings.secrets(), true);
    }

    /**
     * One tick of following the pairings: pairings.json is read once, whatever the number of
     * channels (every read opens and parses the file, and this runs every second); the gate learns
     * a change when the uplink is up, and the channels of a revoked pairing are closed.
     */
    void follow(boolean uplinkUp, Map<Long, RelayChannel> channels) {
        List<PairingSecret> secrets = pairings.secrets();
        if (uplinkUp) {
            announce(secrets, false);
        }
        closeRevoked(secrets, channels);
    }

    /** Announces {@code secrets}' gate keys when they changed since the last time on this uplink, or {@code always}. */
    private void announce(List<PairingSecret> secrets, boolean always) {
        Set<String> ids = new TreeSet<>();
        List<RelayControlMessage.GateKey> keys = new ArrayList<>();
        for (PairingSecret secret : secrets) {
            ids.add(secret.pairingId());
            keys.add(new RelayControlMessage.GateKey(secret.pairingId(), HexFormat.of().formatHex(secret.relayKey())));
        }
        if (!always && ids.equals(announced)) {
            return;
        }
        announced = ids;
        sender.send(new RelayControlMessage.Pairings(keys));
    }

    /** Closes (and forgets) the channels whose pairing is no longer among {@code secrets}: revoked since they authenticated. */
    private static void closeRevoked(List<PairingSecret> secrets, Map<Long, RelayChannel> channels) {
        Set<String> current = new HashSet<>();
        secrets.forEach(s -> current.add(s.pairingId()));
        for (RelayChannel c : channels.values()) {
            String p = c.pairingId();
            if (p != null && !current.contains(p)) {
                c.refuse(ErrorCode.PAIRING_INVALID, "pairing " + p.substring(0, 8) + " was revoked");
                channels.remove(c.id());
            }
        }
    }
}
