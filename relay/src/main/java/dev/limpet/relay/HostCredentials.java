package dev.limpet.relay;

import dev.limpet.protocol.relay.RelayControl;
import dev.limpet.protocol.relay.RelayCrypto;
import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PathTrust.Exposure;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hosts a relay serves: {@code <relay dir>/hosts}, one {@code <hostId> <sha256 of the
 * credential, hex>} per line, 0600 in a 0700 directory. The relay stores only the hash: a copy of
 * the file lets nobody open an uplink. The file is read on every uplink attempt, so
 * {@code limpet relay add-host} and removing a line take effect without a restart. It decides
 * which daemons the relay lets in, so it is read only when nobody else could have written it
 * ({@link PathTrust#readTrusted}), on every read.
 */
public final class HostCredentials {
    static final String FILE = "hosts";
    private static final Base64.Encoder BASE32ISH = Base64.getUrlEncoder().withoutPadding();
    private static final Logger LOG = LoggerFactory.getLogger(HostCredentials.class);
    private static final int MAX_FILE_BYTES = 16 << 20;

    /** A new host's identity, shown once: {@code hostId.credential} is what the daemon keeps. */
    public record Enrolment(String hostId, String credential) {
        public String token() {
            return hostId + "." + credential;
        }
    }

    private final Path dir;

    public HostCredentials(Path dir) {
        this.dir = dir;
    }

    /** Adds a host with fresh random identity and credential. */
    public Enrolment add(SecureRandom random) throws IOException {
        PrivateFiles.directory(dir);
        byte[] id = new byte[16];
        random.nextBytes(id);
        byte[] credential = new byte[32];
        random.nextBytes(credential);
        Enrolment e = new Enrolment(base32(id), BASE32ISH.encodeToString(credential));
        Map<String, String> hosts = read();
        hosts.put(e.hostId(), hash(e.credential()));
        StringBuilder out = new StringBuilder();
        hosts.forEach((h, c) -> out.append(h).append(' ').append(c).append('\n'));
        PrivateFiles.writeAtomically(dir.resolve(FILE), out.toString());
        return e;
    }

    /** Whether {@code credential} is the one enrolled for {@code hostId} (constant-time on the hash). */
    public boolean verify(String hostId, String credential) {
        if (hostId == null || credential == null || !hostId.matches(RelayControl.HOST_ID_PATTERN) || credential.length() > 256) {
            return false;
        }
        String stored;
        try {
            stored = read().get(hostId);
        } catch (IOException e) {
            // fail closed, and loudly: every host is locked out until the operator mends the file
            LOG.error("refusing every uplink: {}", e.getMessage());
            return false;
        }
        return stored != null && RelayCrypto.same(stored.getBytes(StandardCharsets.US_ASCII), hash(credential).getBytes(StandardCharsets.US_ASCII));
    }

    public List<String> hostIds() throws IOException {
        return new ArrayList<>(read().keySet());
    }

    private Map<String, String> read() throws IOException {
        Path file = dir.resolve(FILE);
        Map<String, String> hosts = new LinkedHashMap<>();
        List<String> lines;
        try {
            lines = PathTrust.forThisProcess().readTrustedString(file, Exposure.SETTINGS, MAX_FILE_BYTES).lines().toList();
        } catch (NoSuchFileException e) {
            return hosts;
        }
        for (String line : lines) {
            String[] parts = line.strip().split("\\s+");
            if (parts.length == 2 && parts[0].matches(RelayControl.HOST_ID_PATTERN) && parts[1].matches("[0-9a-f]{64}")) {
                hosts.put(parts[0], parts[1]);
            }
        }
        return hosts;
    }

    static String hash(String credential) {
        return HexFormat.of().formatHex(RelayCrypto.sha256(credential.getBytes(StandardCharsets.UTF_8)));
    }

    /** RFC 4648 base32, lowercase, no padding: 16 bytes give 26 characters. */
    static String base32(byte[] bytes) {
        String alphabet = "abcdefghijklmnopqrstuvwxyz234567";
        StringBuilder s = new StringBuilder();
        int buffer = 0;
        int bits = 0;
        for (byte b : bytes) {
            buffer = (buffer << 8) | (b & 0xff);
            bits += 8;
            while (bits >= 5) {
                s.append(alphabet.charAt((buffer >> (bits - 5)) & 31));
                bits -= 5;
            }
        }
        if (bits > 0) {
            s.append(alphabet.charAt((buffer << (5 - bits)) & 31));
        }
        return s.toString();
    }
}
