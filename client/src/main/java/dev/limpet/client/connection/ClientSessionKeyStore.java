package dev.limpet.client.connection;

import dev.limpet.terminal.os.PathTrust;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The persistent {@code clientSessionKey} of one client profile: created once (256 random bits,
 * base64url) in a 0600 file inside a 0700 directory, then read back on every run and sent in every
 * {@code hello}. The daemon keys the client's session (attachments, offsets) by it, so a key that
 * changed silently would orphan that session: an unreadable or corrupt file is an error naming the
 * file, never a reason to make up a new identity.
 */
public final class ClientSessionKeyStore {
    /** File name inside the config directory. */
    public static final String FILE_NAME = "client-session-key";

    private static final Logger LOG = LoggerFactory.getLogger(ClientSessionKeyStore.class);
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_-]{8,128}");
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");

    private final Path file;

    public ClientSessionKeyStore(Path configDir) {
        this.file = configDir.resolve(FILE_NAME);
    }

    /** The store of the default profile ({@link ConfigDirs#limpetConfigDir()}). */
    public static ClientSessionKeyStore forDefaultProfile() {
        return new ClientSessionKeyStore(ConfigDirs.limpetConfigDir());
    }

    public Path file() {
        return file;
    }

    /** Returns the stored key, creating it on first use; throws {@link ClientIdentityException} when the file is unusable. */
    public String loadOrCreate() {
        try {
            return read();
        } catch (NoSuchFileException e) {
            return create();
        }
    }

    private String read() throws NoSuchFileException {
        String content;
        try {
            // a planted link would make us read, and then chmod, a file that is not ours
            if (!PathTrust.forThisProcess().ownFileIfPresent(file)) {
                throw new NoSuchFileException(file.toString());
            }
            content = Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (NoSuchFileException e) {
            throw e;
        } catch (IOException e) {
            throw new ClientIdentityException("cannot read the client session key " + file + ": " + e.getMessage()
                    + "; fix its permissions, or delete it to start a new client identity", e);
        }
        if (!VALID.matcher(content).matches()) {
            throw new ClientIdentityException("the client session key " + file + " is corrupt (expected 8-128 characters of"
                    + " [A-Za-z0-9_-]); delete it to start a new client identity");
        }
        tightenPermissions();
        return content;
    }

    private String create() {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String key = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        Path dir = file.getParent();
        Path temp = null;
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
            temp = Files.createTempFile(dir, FILE_NAME, ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
            Files.writeString(temp, key + "\n", StandardCharsets.US_ASCII);
            // A hard link never replaces an existing file: if another process created the key first, use theirs.
            Files.createLink(file, temp);
            LOG.debug("created client session key {} ({})", file, KeyHash.of(key));
            return key;
        } catch (FileAlreadyExistsException raced) {
            try {
                return read();
            } catch (NoSuchFileException vanished) {
                throw new ClientIdentityException("the client session key " + file + " vanished while being created", vanished);
            }
        } catch (IOException e) {
            throw new ClientIdentityException("cannot create the client session key " + file + ": " + e.getMessage(), e);
        } finally {
            if (temp != null) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException ignored) {
                    // A stray temp file is harmless; the key itself is in place.
                }
            }
        }
    }

    /** A key file others can read is a leaked identity; narrowing it is safe and keeps the identity. */
    private void tightenPermissions() {
        try {
            Set<PosixFilePermission> current = Files.getPosixFilePermissions(file);
            if (!current.equals(OWNER_ONLY_FILE)) {
                Files.setPosixFilePermissions(file, OWNER_ONLY_FILE);
                LOG.warn("{} had permissions {}; set them to rw-------", file, PosixFilePermissions.toString(current));
            }
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn("cannot check the permissions of {}: {}", file, e.getMessage());
        }
    }
}
