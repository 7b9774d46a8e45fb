package dev.limpet.protocol.relay;

/**
 * The text messages between a relay and a daemon's uplink (JSON objects with a {@code type}); the
 * relay's whole control plane. Relay → daemon: {@code channel_open{channel}} (a client socket
 * arrived for this host), {@code channel_closed{channel}} (it went). Daemon → relay:
 * {@code close_channel{channel, status, reason}} (close that client socket with this WebSocket
 * status), {@code pairings{pairings:[{id, key}]}} (the gate's keys, see {@link RelayGate}). Channel
 * numbers are the relay's, per uplink, never reused while it runs.
 */
public final class RelayControl {
    public static final String CHANNEL_OPEN = "channel_open";
    public static final String CHANNEL_CLOSED = "channel_closed";
    public static final String CLOSE_CHANNEL = "close_channel";
    /** Daemon → relay: {@code pairings{pairings:[{id, key}]}}, the relay keys of this host's pairings for the gate ({@link RelayGate}); sent on every uplink open and whenever they change. */
    public static final String PAIRINGS = "pairings";
    /** Relay → daemon: {@code pairings_ack{pairings: N}}, the gate now holds N pairings. */
    public static final String PAIRINGS_ACK = "pairings_ack";
    /** The path of a daemon's uplink: {@code /relay/uplink/<hostId>}, with {@code Authorization: Bearer <credential>}. */
    public static final String UPLINK_PATH = "/relay/uplink/";
    /** The path clients open: {@code /h/<hostId>/ws} (the browser UI lives at {@code /h/<hostId>/}). */
    public static final String CLIENT_PATH_PREFIX = "/h/";
    /** Host ids: 26 lowercase base32 characters (128 random bits). */
    public static final String HOST_ID_PATTERN = "[a-z2-7]{26}";

    private RelayControl() {}
}
