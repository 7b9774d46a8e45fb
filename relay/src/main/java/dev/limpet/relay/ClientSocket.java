package dev.limpet.relay;

import java.nio.ByteBuffer;

/**
 * A client's socket on this relay, for one host: what it sends, where it came from, and where it
 * is in its life ({@link Route}). It arrives at the gate holding one of the gate's places and the
 * challenge it must answer; its first message is that answer, and only a proof of a pairing of
 * the host routes it, to a channel on the host's uplink here or through the node of the cluster
 * that holds the uplink. Callbacks of one socket run one at a time; the gate's timer reads the
 * route from its own thread.
 */
final class ClientSocket implements ClientEnd {
    /** Where the client is: each step follows the one before, and {@link Gone} ends them all. */
    sealed interface Route {}

    /** Let in (its upgrade passed the checks), not at the gate yet. */
    record Arrived() implements Route {}

    /** At the gate: its first message must answer {@code challenge}. */
    record AtGate(byte[] challenge) implements Route {}

    /** Its answer is being checked (here, or by the node holding the uplink). */
    record Checking() implements Route {}

    /** Proven: routed on {@code channel} of the host's uplink on this node. */
    record Local(long channel) implements Route {}

    /** Proven: routed through the node of the cluster that holds the host's uplink. */
    record Remote(Cluster.RemoteChannel channel) implements Route {}

    /** Refused or gone. */
    record Gone() implements Route {}

    private final String hostId;
    private final String address;
    private final Outbound out;
    private volatile Route route = new Arrived();
    private boolean holdsGatePlace;

    ClientSocket(String hostId, String address, Outbound out) {
        this.hostId = hostId;
        this.address = address;
        this.out = out;
    }

    String hostId() {
        return hostId;
    }

    /** Where it came from (a source address, or the proxy's forwarded one): the gate counts its places by it. */
    String address() {
        return address;
    }

    Route route() {
        return route;
    }

    /** It took a place at the gate and was sent {@code challenge}. */
    synchronized void atGate(byte[] challenge) {
        if (route instanceof Arrived) {
            route = new AtGate(challenge);
            holdsGatePlace = true;
        }
    }

    /** Its first message came: the challenge it answers, or null when it is not at the gate (then nothing of it is checked). */
    synchronized byte[] answering() {
        if (route instanceof AtGate(byte[] challenge)) {
            route = new Checking();
            return challenge;
        }
        return null;
    }

    /** Its answer proved a pairing: route it. False when the socket went meanwhile (the caller closes what it opened). */
    synchronized boolean routed(Route to) {
        if (!(route instanceof Checking) || !(to instanceof Local || to instanceof Remote)) {
            return false;
        }
        route = to;
        return true;
    }

    /**
     * Whether no answer came yet (the gate's timer closes such a socket). One being checked is
     * not: its check ends it either way, and a check that takes long (the holder's node reached
     * through NATS on a loaded machine) proves nothing against its pairing.
     */
    boolean unanswered() {
        Route r = route;
        return r instanceof Arrived || r instanceof AtGate;
    }

    /** True once, for the socket that holds a place at the gate: it passed, failed or left, and the place is free. */
    synchronized boolean leavesGate() {
        boolean held = holdsGatePlace;
        holdsGatePlace = false;
        return held;
    }

    /** It is refused or went: returns where it was (a route to close), once; {@link Gone} after that. */
    synchronized Route gone() {
        Route was = route;
        route = new Gone();
        return was;
    }

    boolean isOpen() {
        return out.isOpen();
    }

    @Override
    public boolean sendBinary(ByteBuffer message) {
        return out.sendBinary(message, () -> {});
    }

    @Override
    public boolean sendBinary(ByteBuffer message, Runnable written) {
        return out.sendBinary(message, written);
    }

    @Override
    public void close(int status, String reason) {
        out.close(status, reason);
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
