package dev.limpet.relay.cluster;

import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import io.nats.client.Connection;
import io.nats.client.Message;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One end of a channel between two relay nodes: the client's node and the node holding the host's
 * uplink each have one, each subscribed (through the node's wildcard) on its own subject. Data
 * messages carry the single relay's end-to-end ciphertext unchanged, numbered so a gap (NATS
 * dropped a message) closes the channel instead of corrupting it; the client then resumes by
 * offset. A gap shows only once a later message arrives, so the node closes every channel when
 * its connection to NATS drops ({@link NatsCluster#messagesMayBeLost}). Each direction is bounded
 * by {@link Credit}.
 */
final class ChannelEnd {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelEnd.class);
    /**
     * A message larger than this crosses NATS in pieces (NATS refuses payloads above its
     * max_payload, 1 MiB by default; a relayed frame may be 2 MiB): every piece but the last carries
     * {@link Subjects#MORE}, the receiver joins them, never past {@link #MAX_MESSAGE}.
     */
    static final int PIECE = 256 * 1024;
    static final int MAX_MESSAGE = 4 << 20;

    /** Where this end's incoming messages go: the client socket, or the host's uplink. */
    interface Sink {
        /** Delivers one message; {@code written} runs once it left this node. False when the socket is gone or too far behind. */
        boolean deliver(ByteBuffer message, Runnable written);

        /** The other end closed the channel. */
        void closed(int status, String reason);
    }

    final long id;
    final String subject;
    /** The host this channel reaches (for sweeping when its holder changes). */
    final String hostId;
    /** True on the client's node: this end went out to the host's node. */
    final boolean outgoing;
    final Instant opened;
    private final Connection nats;
    private final Credit out;
    private final Credit in;
    private volatile Sink sink;
    private String peer;
    private String peerNode;
    private long owedAck;
    private long sendSeq;
    private long expectSeq = 1;
    private boolean closed;
    private ByteArrayOutputStream joining;
    private int closeStatus;
    private String closeReason;

    ChannelEnd(long id, String subject, String hostId, boolean outgoing, Instant opened, Connection nats, Credit out, Credit in) {
        this.id = id;
        this.subject = subject;
        this.hostId = hostId;
        this.outgoing = outgoing;
        this.opened = opened;
        this.nats = nats;
        this.out = out;
        this.in = in;
    }

    void sink(Sink sink) {
        this.sink = sink;
    }

    /** The other end's subject is known (on the client's node: the open request's answer). Sends what was owed meanwhile. */
    void peer(String peerSubject) {
        long ack;
        boolean closeNow;
        synchronized (this) {
            peer = peerSubject;
            peerNode = Subjects.nodeOfChannel(peerSubject);
            ack = owedAck;
            owedAck = 0;
            closeNow = closed;
        }
        if (closeNow) {
            publishClose(closeStatus, closeReason);
        } else if (ack > 0) {
            publishAck(ack);
        }
    }

    /** Closes this end without telling anyone (it was never opened at the other end). */
    synchronized void markGone() {
        markClosedLocked(1000, "gone");
    }

    synchronized String peerSubject() {
        return peer;
    }

    synchronized String peerNode() {
        return peerNode;
    }

    synchronized boolean isClosed() {
        return closed;
    }

    /** Sends one message to the other end; false (and the channel closed with 1008 slow_consumer) when out of credit. */
    boolean send(ByteBuffer message) {
        byte[] body = new byte[message.remaining()];
        message.get(body);
        int failed;
        String why;
        // Under this end's lock: the pieces of one message get consecutive sequence numbers, and messages keep their order.
        synchronized (this) {
            if (closed || peer == null) {
                return false;
            }
            if (!out.reserve(body.length)) {
                LOG.info("channel {} to host {}: more than the window unacknowledged; closed (the client resumes by offset)", id, hostId);
                failed = 1008;
                why = "slow_consumer";
            } else {
                try {
                    int off = 0;
                    do {
                        int n = Math.min(PIECE, body.length - off);
                        publish(peer, new ChannelMessage.Data(++sendSeq, off + n < body.length, Arrays.copyOfRange(body, off, off + n)));
                        off += n;
                    } while (off < body.length);
                    return true;
                } catch (RuntimeException e) {
                    LOG.warn("channel {} to host {}: publishing failed ({}); closed", id, hostId, e.toString());
                    failed = 1012;
                    why = "relay_unavailable";
                }
            }
            markClosedLocked(failed, why);
        }
        // Outside the lock: the sink's close may take other locks.
        publishClose(failed, why);
        Sink s = sink;
        if (s != null) {
            s.closed(failed, why);
        }
        return false;
    }

    /** A message on this end's subject. */
    void received(Message m) {
        ChannelMessage message;
        try {
            message = ChannelMessage.decode(m.getHeaders(), m.getData());
        } catch (ProtocolException e) {
            // Not one of ours (anyone who may publish on NATS can send it): the channel cannot be trusted to go on.
            LOG.warn("channel {} of host {}: a message that is not a channel message ({}); closed, the client resumes by offset", id,
                    hostId, SafeText.of(e.getMessage(), 100));
            closeBoth(1012, "relay_gap");
            return;
        }
        switch (message) {
            case ChannelMessage.Close c -> {
                if (markClosed(c.status(), c.reason())) {
                    Sink s = sink;
                    if (s != null) {
                        s.closed(c.status(), c.reason());
                    }
                }
            }
            case ChannelMessage.Ack a -> out.acked(a.bytes());
            case ChannelMessage.Data d -> receivedData(d);
        }
    }

    private void receivedData(ChannelMessage.Data d) {
        boolean gap;
        synchronized (this) {
            if (closed) {
                return;
            }
            gap = d.seq() != expectSeq;
            if (gap) {
                LOG.warn("channel {} of host {}: message {} where {} was due (a gap on NATS); closed, the client resumes by offset", id,
                        hostId, d.seq(), expectSeq);
            } else {
                expectSeq++;
            }
        }
        if (gap) {
            closeBoth(1012, "relay_gap");
            return;
        }
        byte[] body;
        synchronized (this) {
            if (d.more() || joining != null) {
                if (joining == null) {
                    joining = new ByteArrayOutputStream();
                }
                if (joining.size() + d.piece().length > MAX_MESSAGE) {
                    joining = null;
                    body = null;
                } else {
                    joining.writeBytes(d.piece());
                    if (d.more()) {
                        return;
                    }
                    body = joining.toByteArray();
                    joining = null;
                }
            } else {
                body = d.piece();
            }
        }
        if (body == null) {
            LOG.warn("channel {} of host {}: a message over {} bytes; closed", id, hostId, MAX_MESSAGE);
            closeBoth(1009, "message_too_big");
            return;
        }
        Sink s = sink;
        if (s == null || !s.deliver(ByteBuffer.wrap(body), () -> delivered(body.length))) {
            closeBoth(1012, "channel_gone");
        }
    }

    private void delivered(long bytes) {
        long ack = in.delivered(bytes);
        if (ack == 0) {
            return;
        }
        synchronized (this) {
            if (peer == null) {
                owedAck += ack;
                return;
            }
        }
        publishAck(ack);
    }

    /** Closes this end, tells the other end and this end's sink. */
    void closeBoth(int status, String reason) {
        if (closeQuietly(status, reason)) {
            Sink s = sink;
            if (s != null) {
                s.closed(status, reason);
            }
        }
    }

    /** Closes this end and tells the other end (not the sink: its socket is the one that went); false if it was closed already. */
    boolean closeQuietly(int status, String reason) {
        boolean tell;
        synchronized (this) {
            if (!markClosedLocked(status, reason)) {
                return false;
            }
            tell = peer != null;
        }
        if (tell) {
            publishClose(status, reason);
        }
        return true;
    }

    private synchronized boolean markClosed(int status, String reason) {
        return markClosedLocked(status, reason);
    }

    private boolean markClosedLocked(int status, String reason) {
        if (closed) {
            return false;
        }
        closed = true;
        closeStatus = status;
        closeReason = reason;
        return true;
    }

    private void publishAck(long bytes) {
        String to;
        synchronized (this) {
            to = peer;
        }
        try {
            publish(to, new ChannelMessage.Ack(bytes));
        } catch (RuntimeException e) {
            LOG.debug("channel {}: an acknowledgement was not sent ({})", id, e.toString());
        }
    }

    private void publishClose(int status, String reason) {
        String to;
        synchronized (this) {
            to = peer;
        }
        try {
            publish(to, new ChannelMessage.Close(status, reason));
        } catch (RuntimeException e) {
            LOG.debug("channel {}: the close was not sent ({})", id, e.toString());
        }
    }

    private void publish(String to, ChannelMessage message) {
        nats.publish(to, message.headers(), message.body());
    }
}
