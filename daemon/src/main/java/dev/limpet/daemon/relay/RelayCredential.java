package dev.limpet.daemon.relay;

import dev.limpet.protocol.relay.RelayControl;
import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PathTrust.Exposure;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * This host's identity at a relay: {@code <data_root>/relay-credential} (0600, ours), holding the
 * {@code <hostId>.<credential>} line {@code limpet relay add-host} printed. {@link #toString()}
 * never shows the credential.
 */
public record RelayCredential(String hostId, String credential) {
    public static final String FILE = "relay-credential";

    public static RelayCredential load(Path dataRoot) throws IOException {
        Path file = dataRoot.resolve(FILE);
        String text;
        try {
            text = PathTrust.forThisProcess().readTrustedString(file, Exposure.SECRET, 4096).strip();
        } catch (NoSuchFileException e) {
            throw new IOException("--relay needs this host's relay credential in " + file
                    + " (mode 0600): run `limpet relay add-host` on the relay and put the line it prints there");
        }
        int dot = text.indexOf('.');
        if (dot < 0 || !text.substring(0, dot).matches(RelayControl.HOST_ID_PATTERN) || !text.substring(dot + 1).matches("[A-Za-z0-9_-]{16,128}")) {
            throw new IOException(file + " does not hold a relay credential (<hostId>.<credential>, as limpet relay add-host prints it)");
        }
        return new RelayCredential(text.substring(0, dot), text.substring(dot + 1));
    }

    @Override
    public String toString() {
        return "RelayCredential[" + hostId + "]";
    }
}
