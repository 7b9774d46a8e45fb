package dev.limpet.daemon.files;

import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stable {@code daemon_instance_id} kept in {@code <data_root>/daemon-id}: survives restarts and
 * upgrades; rewritten atomically (with a loud log line) when missing or corrupt.
 */
public final class DaemonIdentity {
    private static final Logger LOG = LoggerFactory.getLogger(DaemonIdentity.class);
    private static final Pattern VALID = Pattern.compile("d-[0-9a-f]{16}");

    private DaemonIdentity() {}

    public static String loadOrCreate(DataRoot root) throws IOException {
        var path = root.daemonId();
        try {
            // Another user's daemon-id would make this daemon look in (and adopt) their worker root.
            if (!PathTrust.forThisProcess().ownFileIfPresent(path)) {
                throw new NoSuchFileException(path.toString());
            }
            String id = Files.readString(path, StandardCharsets.UTF_8).strip();
            if (VALID.matcher(id).matches()) {
                return id;
            }
            LOG.warn("daemon-id at {} is corrupt; writing a new daemon_instance_id", path);
        } catch (NoSuchFileException e) {
            LOG.info("no daemon-id yet at {}; creating one", path);
        } catch (MalformedInputException e) {
            LOG.warn("daemon-id at {} is not text; writing a new daemon_instance_id", path);
        }
        byte[] bytes = new byte[8];
        new SecureRandom().nextBytes(bytes);
        String id = "d-" + HexFormat.of().formatHex(bytes);
        PrivateFiles.writeAtomically(path, id + "\n");
        return id;
    }

    public static boolean isValid(String id) {
        return id != null && VALID.matcher(id).matches();
    }
}
