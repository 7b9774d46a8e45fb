package dev.limpet.daemon.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PathTrust.Exposure;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The clients this daemon lets in through a relay: {@code <data_root>/pairings.json} (0600),
 * {@code {"pairings":[{"id","secret","label","created_at"}]}}. {@code limpet pair} adds one,
 * {@code limpet pair --revoke} removes one; the daemon reads the file on every handshake, so both
 * take effect at once (a revoked pairing's open channels are closed within seconds, see
 * {@link RelayUplink}). The secret never leaves this file except in the link printed once.
 */
public final class Pairings {
    private static final int MAX_FILE_BYTES = 16 << 20;
    public static final String FILE = "pairings.json";

    /** One pairing as listed: never the secret. */
    public record Listed(String id, String label, String createdAt) {}

    private final Path file;
    private final Clock clock;

    public Pairings(Path dataRoot, Clock clock) {
        this.file = dataRoot.resolve(FILE);
        this.clock = clock;
    }

    /** Adds a pairing with a fresh secret and returns the secret (for the link, shown once). */
    public synchronized PairingSecret create(String label, SecureRandom random) throws IOException {
        PairingSecret secret = PairingSecret.generate(random);
        ObjectNode root = read();
        ObjectNode p = ((ArrayNode) root.get("pairings")).addObject();
        p.put("id", secret.pairingId());
        p.put("secret", secret.encoded());
        p.put("label", label == null ? "" : label);
        p.put("created_at", clock.instant().toString());
        PrivateFiles.writeAtomically(file, ProtocolCodec.write(root) + "\n");
        return secret;
    }

    public synchronized List<Listed> list() throws IOException {
        List<Listed> out = new ArrayList<>();
        for (JsonNode p : read().get("pairings")) {
            out.add(new Listed(p.path("id").asText(), p.path("label").asText(""), p.path("created_at").asText("")));
        }
        return out;
    }

    /** Removes the pairings whose id starts with {@code idPrefix} (at least 6 characters); returns how many. */
    public synchronized int revoke(String idPrefix) throws IOException {
        if (idPrefix == null || !idPrefix.matches("[0-9a-f]{6,32}")) {
            throw new IllegalArgumentException("name a pairing by at least 6 hex digits of its id (limpet pair --list)");
        }
        ObjectNode root = read();
        ArrayNode kept = ProtocolCodec.mapper().createArrayNode();
        int removed = 0;
        for (JsonNode p : root.get("pairings")) {
            if (p.path("id").asText().startsWith(idPrefix)) {
                removed++;
            } else {
                kept.add(p);
            }
        }
        if (removed > 0) {
            root.set("pairings", kept);
            PrivateFiles.writeAtomically(file, ProtocolCodec.write(root) + "\n");
        }
        return removed;
    }

    /** Every pairing's secret (an unreadable or damaged file gives none: fail closed). */
    public List<PairingSecret> secrets() {
        List<PairingSecret> out = new ArrayList<>();
        try {
            for (JsonNode p : read().get("pairings")) {
                try {
                    out.add(PairingSecret.parse(p.path("secret").asText()));
                } catch (IllegalArgumentException e) {
                    // a damaged entry lets nobody in
                }
            }
        } catch (IOException e) {
            return List.of();
        }
        return out;
    }

    /** The secret of pairing {@code id}, if it exists (an unreadable or damaged file counts as none: fail closed). */
    public Optional<PairingSecret> find(String id) {
        try {
            for (JsonNode p : read().get("pairings")) {
                if (p.path("id").asText().equals(id)) {
                    PairingSecret s = PairingSecret.parse(p.path("secret").asText());
                    return s.pairingId().equals(id) ? Optional.of(s) : Optional.empty();
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    private ObjectNode read() throws IOException {
        String json;
        try {
            json = PathTrust.forThisProcess().readTrustedString(file, Exposure.SECRET, MAX_FILE_BYTES);
        } catch (NoSuchFileException e) {
            ObjectNode empty = ProtocolCodec.mapper().createObjectNode();
            empty.putArray("pairings");
            return empty;
        }
        JsonNode root = ProtocolCodec.mapper().readTree(json);
        if (root == null || !root.isObject() || !root.path("pairings").isArray()) {
            throw new IOException(file + " is damaged: expected {\"pairings\":[…]}");
        }
        return (ObjectNode) root;
    }
}
