package dev.limpet.daemon.websocket;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The server's half of the opening handshake (RFC 6455 §4.2), judged from the request's headers
 * alone: who may open a socket is the gate's business, not this class's.
 */
public final class WsHandshake {
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    public static final String VERSION = "13";

    public sealed interface Outcome {}

    /** Switch protocols: answer with {@code acceptKey} and, if agreed, the compression's terms. */
    public record Accept(String acceptKey, Optional<PerMessageDeflate.Terms> deflate) implements Outcome {}

    /** Not a handshake this server can take: answer {@code status} ({@code 426} names the version it speaks). */
    public record Refuse(int status, String message) implements Outcome {}

    private WsHandshake() {}

    /** Whether a request asks to become a WebSocket at all (its {@code Upgrade} names it). */
    public static boolean asksForWebSocket(List<String> upgradeHeaders) {
        return tokens(upgradeHeaders).contains("websocket");
    }

    public static Outcome judge(String method, List<String> connectionHeaders, String version, String key, List<String> extensionHeaders) {
        if (!"GET".equals(method)) {
            return new Refuse(400, "a WebSocket handshake is a GET");
        }
        if (!tokens(connectionHeaders).contains("upgrade")) {
            return new Refuse(400, "a WebSocket handshake says Connection: Upgrade");
        }
        if (!VERSION.equals(version == null ? null : version.strip())) {
            return new Refuse(426, "this server speaks WebSocket version " + VERSION);
        }
        if (!validKey(key)) {
            return new Refuse(400, "Sec-WebSocket-Key is not 16 bytes in base64");
        }
        return new Accept(acceptKey(key.strip()), PerMessageDeflate.negotiate(extensionHeaders));
    }

    static String acceptKey(String key) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA-1").digest((key + GUID).getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }

    private static boolean validKey(String key) {
        if (key == null) {
            return false;
        }
        try {
            return Base64.getDecoder().decode(key.strip()).length == 16;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static List<String> tokens(List<String> headers) {
        return headers.stream().flatMap(h -> List.of(h.split(",")).stream()).map(t -> t.strip().toLowerCase(Locale.ROOT)).toList();
    }
}
