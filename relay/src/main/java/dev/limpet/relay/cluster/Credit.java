package dev.limpet.relay.cluster;

/**
 * The flow control of one direction of a channel between two nodes. Core NATS drops a consumer
 * that falls behind, so the sender never has more than {@code window} bytes unacknowledged: the
 * receiver acknowledges what its socket took, in batches of at least {@code ackEvery} bytes. A
 * sender out of credit closes the channel (the client resumes by offset) instead of buffering
 * without end. Pure; thread-safe.
 */
final class Credit {
    private final long window;
    private final long ackEvery;
    private long unacked;
    private long delivered;

    Credit(long window, long ackEvery) {
        if (ackEvery <= 0 || ackEvery * 2 > window) {
            throw new IllegalArgumentException("ackEvery must be positive and at most half the window");
        }
        this.window = window;
        this.ackEvery = ackEvery;
    }

    /** Sender: takes {@code bytes} of credit; false (nothing taken) when that would pass the window. */
    synchronized boolean reserve(long bytes) {
        if (unacked + bytes > window) {
            return false;
        }
        unacked += bytes;
        return true;
    }

    /** Sender: the peer acknowledged {@code bytes}. */
    synchronized void acked(long bytes) {
        unacked = Math.max(0, unacked - bytes);
    }

    synchronized long unacked() {
        return unacked;
    }

    /** Receiver: {@code bytes} were delivered; returns how many to acknowledge now (0: not yet, the batch is small). */
    synchronized long delivered(long bytes) {
        delivered += bytes;
        if (delivered < ackEvery) {
            return 0;
        }
        long ack = delivered;
        delivered = 0;
        return ack;
    }
}
