package dev.limpet.daemon.websocket;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * {@code permessage-deflate} (RFC 7692) with one client: messages compressed with raw DEFLATE,
 * each ending in a sync flush whose last four bytes ({@code 00 00 FF FF}) are left off the wire.
 * Both directions keep their window across messages unless the client asked the server not to
 * ({@code server_no_context_takeover}). The JDK's zlib always uses a 32 KiB window, so an offer
 * that limits the server's window ({@code server_max_window_bits} below 15) is declined; a limit
 * on the client's window needs nothing of the inflater.
 *
 * <p>Compressing runs at zlib's fastest level: at the default level it was most of the CPU of the
 * thread that forwards a flood to a page, and terminal output compresses nearly as well.
 * Not thread-safe: the connection calls {@link #compress} under its send lock and
 * {@link #inflate} on its reader.
 */
public final class PerMessageDeflate implements AutoCloseable {
    static final String NAME = "permessage-deflate";
    private static final byte[] TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};

    /** What was agreed: the header to answer with, and whether to reset the compressor after each message. */
    public record Terms(String responseHeader, boolean serverNoContextTakeover) {}

    private final Deflater deflater = new Deflater(Deflater.BEST_SPEED, true);
    private final Inflater inflater = new Inflater(true);
    private final boolean resetAfterEachMessage;
    private static final int KEPT_BUFFER_BYTES = 64 * 1024;
    private byte[] out = new byte[1024];
    private byte[] inflated = new byte[1024];

    public PerMessageDeflate(Terms terms) {
        this.resetAfterEachMessage = terms.serverNoContextTakeover();
    }

    /**
     * The first acceptable {@code permessage-deflate} offer among the client's
     * {@code Sec-WebSocket-Extensions} headers, or empty (then the connection runs without it).
     */
    public static Optional<Terms> negotiate(List<String> extensionHeaders) {
        for (String header : extensionHeaders) {
            for (String offer : header.split(",")) {
                Optional<Terms> terms = accept(offer);
                if (terms.isPresent()) {
                    return terms;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<Terms> accept(String offer) {
        String[] parts = offer.split(";");
        if (!parts[0].strip().equalsIgnoreCase(NAME)) {
            return Optional.empty();
        }
        Set<String> seen = new HashSet<>();
        boolean serverNoContextTakeover = false;
        for (int i = 1; i < parts.length; i++) {
            String param = parts[i].strip();
            int eq = param.indexOf('=');
            String name = (eq < 0 ? param : param.substring(0, eq)).strip().toLowerCase(Locale.ROOT);
            String value = eq < 0 ? null : unquote(param.substring(eq + 1).strip());
            if (!seen.add(name)) {
                return Optional.empty(); // RFC 7692 §7: an offer naming a parameter twice is declined
            }
            switch (name) {
                case "server_no_context_takeover", "client_no_context_takeover" -> {
                    if (value != null) {
                        return Optional.empty();
                    }
                    serverNoContextTakeover |= name.startsWith("server");
                }
                case "server_max_window_bits" -> {
                    if (windowBits(value) != 15) {
                        return Optional.empty();
                    }
                }
                case "client_max_window_bits" -> {
                    if (value != null && windowBits(value) < 0) {
                        return Optional.empty();
                    }
                }
                default -> {
                    return Optional.empty();
                }
            }
        }
        String response = serverNoContextTakeover ? NAME + "; server_no_context_takeover" : NAME;
        return Optional.of(new Terms(response, serverNoContextTakeover));
    }

    private static String unquote(String v) {
        return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
    }

    /** 8..15, or -1 when {@code value} is not one of those. */
    private static int windowBits(String value) {
        if (value == null || !value.matches("[0-9]{1,2}")) {
            return -1;
        }
        int bits = Integer.parseInt(value);
        return bits >= 8 && bits <= 15 ? bits : -1;
    }

    /** One message's payload compressed, without the flush's tail. */
    ByteBuffer compress(ByteBuffer payload) {
        deflater.setInput(payload.duplicate());
        int n = 0;
        while (true) {
            n += deflater.deflate(out, n, out.length - n, Deflater.SYNC_FLUSH);
            if (n < out.length) {
                break;
            }
            out = Arrays.copyOf(out, out.length * 2);
        }
        if (resetAfterEachMessage) {
            deflater.reset();
        }
        ByteBuffer compressed = ByteBuffer.wrap(Arrays.copyOf(out, n - TAIL.length));
        if (out.length > KEPT_BUFFER_BYTES) {
            out = new byte[1024];
        }
        return compressed;
    }

    /**
     * One compressed message's payload inflated; more than {@code maxBytes} of it is
     * {@link WsClose#TOO_BIG} (a small message must not inflate into the daemon's memory).
     */
    byte[] inflate(byte[] data, int length, int maxBytes) throws WsProtocolException {
        try {
            inflater.setInput(data, 0, length);
            int n = inflateInput(0, maxBytes);
            if (!inflater.finished()) {
                inflater.setInput(TAIL);
                n = inflateInput(n, maxBytes);
            }
            if (inflater.finished()) {
                // The client ended its DEFLATE stream in this message (BFINAL): its next one starts a new stream.
                inflater.reset();
            }
            byte[] message = Arrays.copyOf(inflated, n);
            if (inflated.length > KEPT_BUFFER_BYTES) {
                inflated = new byte[1024]; // a paste leaves no large buffer behind
            }
            return message;
        } catch (DataFormatException e) {
            throw new WsProtocolException(WsClose.BAD_PAYLOAD, "a compressed message is not DEFLATE data: " + e.getMessage());
        }
    }

    /** Inflates the input set until the inflater needs more (or its stream ended); returns the bytes in {@link #inflated}. */
    private int inflateInput(int n, int maxBytes) throws DataFormatException, WsProtocolException {
        while (true) {
            if (n == inflated.length) {
                if (n >= maxBytes) {
                    if (inflater.inflate(new byte[1]) > 0) {
                        throw new WsProtocolException(WsClose.TOO_BIG, "a message inflates to more than " + maxBytes + " bytes");
                    }
                    return n;
                }
                inflated = Arrays.copyOf(inflated, (int) Math.min(maxBytes, 2L * n));
            }
            // With room left, 0 means it needs input or the stream ended; zlib may hold output back
            // when the room ran out, so a full buffer always gets another turn.
            int got = inflater.inflate(inflated, n, inflated.length - n);
            n += got;
            if (got == 0) {
                if (inflater.needsDictionary()) {
                    throw new WsProtocolException(WsClose.BAD_PAYLOAD, "a compressed message asks for a dictionary");
                }
                return n;
            }
        }
    }

    @Override
    public void close() {
        deflater.end();
        inflater.end();
    }
}
