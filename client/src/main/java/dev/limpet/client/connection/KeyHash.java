package dev.limpet.client.connection;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The form of a {@code clientSessionKey} that may appear in logs: the first 8 hex digits of its SHA-256. */
public final class KeyHash {
    private KeyHash() {}

    public static String of(String clientSessionKey) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(clientSessionKey.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
