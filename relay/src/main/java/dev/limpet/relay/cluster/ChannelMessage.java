package dev.limpet.relay.cluster;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.relay.RelayControlMessage;
import io.nats.client.impl.Headers;
import java.util.Arrays;

/**
 * What crosses NATS on a channel subject ({@code limpet.relay.ch.<node>.<n>}, {@link ChannelEnd}),
 * decoded and validated once here: whatever anyone publishes there either decodes to one of these
 * records, which re-encodes to an equal one, or is refused with {@code bad_request}. The kind is in
 * the headers ({@link Subjects#SEQ}, {@link Subjects#ACK}, {@link Subjects#CLOSE}); only data
 * carries a body.
 */
sealed interface ChannelMessage {
    /** Longest header value read: numbers and a close reason ({@link RelayControlMessage#MAX_REASON_CHARS}) are shorter. */
    int MAX_HEADER_CHARS = 200;

    /**
     * One piece of an end-to-end message, number {@code seq} on this channel (from 1, no gaps);
     * {@code more}: the message goes on in the next piece.
     */
    record Data(long seq, boolean more, byte[] piece) implements ChannelMessage {
        public Data {
            if (seq < 1) {
                throw bad("a channel's data is numbered from 1");
            }
            piece = piece == null ? new byte[0] : piece;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Data d && seq == d.seq && more == d.more && Arrays.equals(piece, d.piece);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(seq) * 31 + Arrays.hashCode(piece);
        }

        @Override
        public String toString() {
            return "Data[seq=" + seq + ", more=" + more + ", " + piece.length + " bytes]";
        }
    }

    /** The other end delivered {@code bytes} more: that much credit comes back ({@link Credit}). */
    record Ack(long bytes) implements ChannelMessage {
        public Ack {
            if (bytes < 1) {
                throw bad("an acknowledgement counts bytes delivered (at least 1)");
            }
        }
    }

    /**
     * The other end closed the channel: its client socket closes with {@code status} and
     * {@code reason}, cleaned as a daemon's close is (a status a WebSocket may send, a short
     * printable reason, {@code closed} when none was given).
     */
    record Close(int status, String reason) implements ChannelMessage {
        public Close {
            status = RelayControlMessage.sendableStatus(status);
            reason = RelayControlMessage.printableReason(reason);
            reason = reason.isBlank() ? "closed" : reason;
        }
    }

    /** A message as it arrived on a channel subject. */
    static ChannelMessage decode(Headers headers, byte[] body) {
        String close = header(headers, Subjects.CLOSE);
        if (close != null) {
            long status = number(close, "a close status");
            return new Close(status >= 1000 && status < 5000 ? (int) status : 1000, header(headers, Subjects.REASON));
        }
        String ack = header(headers, Subjects.ACK);
        if (ack != null) {
            return new Ack(number(ack, "an acknowledgement"));
        }
        String seq = header(headers, Subjects.SEQ);
        if (seq == null) {
            throw bad("a channel message is data, an acknowledgement or a close");
        }
        return new Data(number(seq, "a sequence number"), header(headers, Subjects.MORE) != null, body);
    }

    /** The headers this message goes out with. */
    default Headers headers() {
        return switch (this) {
            case Data d -> {
                Headers h = new Headers().put(Subjects.SEQ, Long.toString(d.seq()));
                yield d.more() ? h.put(Subjects.MORE, "1") : h;
            }
            case Ack a -> new Headers().put(Subjects.ACK, Long.toString(a.bytes()));
            case Close c -> new Headers().put(Subjects.CLOSE, Integer.toString(c.status())).put(Subjects.REASON, c.reason());
        };
    }

    /** The body this message goes out with (empty but for data). */
    default byte[] body() {
        return this instanceof Data d ? d.piece() : new byte[0];
    }

    private static String header(Headers headers, String name) {
        String value = headers == null ? null : headers.getFirst(name);
        if (value != null && value.length() > MAX_HEADER_CHARS) {
            throw bad("a channel message header over " + MAX_HEADER_CHARS + " characters");
        }
        return value;
    }

    private static long number(String text, String what) {
        try {
            return Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw bad(what + " is a whole number");
        }
    }

    private static ProtocolException bad(String message) {
        return new ProtocolException(ErrorCode.BAD_REQUEST, message);
    }
}
