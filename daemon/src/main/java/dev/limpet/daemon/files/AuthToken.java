package dev.limpet.daemon.files;

import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** The 256-bit token every client presents, kept in {@code <data_root>/auth-token} (0600). */
public final class AuthToken {
    private static final Pattern VALID = Pattern.compile("[0-9a-f]{64}");
    private final byte[] token;

    private AuthToken(String token) {
        this.token = token.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Reads the token, or writes a fresh one when there is none (or it is not a token). A token
     * file that is a symbolic link or belongs to another user is refused, never used: whoever
     * planted it would hold the key to this daemon.
     *
     * @throws dev.limpet.terminal.os.UnsafePathException for a file limpet must not trust
     */
    public static AuthToken loadOrCreate(DataRoot root) throws IOException {
        var path = root.authToken();
        try {
            if (!PathTrust.forThisProcess().ownFileIfPresent(path)) {
                throw new NoSuchFileException(path.toString());
            }
            String existing = Files.readString(path, StandardCharsets.UTF_8).strip();
            if (VALID.matcher(existing).matches()) {
                Files.setPosixFilePermissions(path, PrivateFiles.FILE_0600);
                return new AuthToken(existing);
            }
        } catch (NoSuchFileException | MalformedInputException e) {
            // fall through: create a fresh token
        }
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        String fresh = HexFormat.of().formatHex(bytes);
        PrivateFiles.writeAtomically(path, fresh + "\n");
        return new AuthToken(fresh);
    }

    /** Constant-time comparison, so response timing tells nothing about the token. */
    public boolean matches(String candidate) {
        if (candidate == null) {
            return false;
        }
        return MessageDigest.isEqual(token, candidate.strip().getBytes(StandardCharsets.US_ASCII));
    }

    public String value() {
        return new String(token, StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
        return "AuthToken[redacted]";
    }
}
