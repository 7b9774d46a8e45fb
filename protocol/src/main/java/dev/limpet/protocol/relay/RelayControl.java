package dev.limpet.protocol.relay;

/**
 * The text messages between a relay and a daemon's uplink (JSON objects with a {@code type}); the
 * relay's whole control plane. Relay → daemon: {@code channel_open{channel}} (a client socket
 * arrived for this host), {@code channel_closed{channel}} (it went). Daemon → relay:
 * {@code close_channel{channel, status, reason}} (close that client socket with this WebSocket
 * status). Channel numbers are the relay's, per uplink, never reused while it runs.
 */
public final class RelayControl {
    public static final String CHANNEL_OPEN = "channel_open";
    public static final String CHANNEL_CLOSED = "channel_closed";
    public static final String CLOSE_CHANNEL = "close_channel";
    /** The path of a daemon's uplink: {@code /relay/uplink/<hostId>}, with {@code Authorization: Bearer <credential>}. */
    public static final String UPLINK_PATH = "/relay/uplink/";
    /** The path clients open: {@code /h/<hostId>/ws} (the browser UI lives at {@code /h/<hostId>/}). */
    public static final String CLIENT_PATH_PREFIX = "/h/";
    /** Host ids: 26 lowercase base32 characters (128 random bits). */
    public static final String HOST_ID_PATTERN = "[a-z2-7]{26}";

    private RelayControl() {}
}
