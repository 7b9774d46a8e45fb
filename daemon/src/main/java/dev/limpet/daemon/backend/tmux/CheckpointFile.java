package dev.limpet.daemon.backend.tmux;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.limpet.protocol.SessionIds;
import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes the {@link Checkpoint}: JSON, 0600, replaced atomically (a crash leaves the old
 * file or the new one, never half of one), never read through a symbolic link or from a file
 * another user owns.
 *
 * <p>Reading never fails the daemon: a checkpoint that is missing, stale (older than
 * {@link #STALE_AFTER}), corrupt, of another version, or naming sessions whose ids do not check out
 * yields what can be trusted plus a {@link Loaded#problem()} to warn about; a corrupt or foreign
 * file is moved aside ({@code checkpoint.json.bad-<millis>}) for inspection.
 */
final class CheckpointFile {
    static final String NAME = "checkpoint.json";
    static final Duration STALE_AFTER = Duration.ofDays(7);
    private static final ObjectMapper JSON = new ObjectMapper();

    enum Outcome { MISSING, LOADED, STALE, CORRUPT, FOREIGN }

    /**
     * @param entries entries that check out (valid session id, the tmux name derived from it)
     * @param rejected entries skipped (their tmux names, when readable, so they can be killed)
     * @param problem why the file or some entries were not used; null when all was well
     */
    record Loaded(Outcome outcome, List<Checkpoint.Entry> entries, List<String> rejected, String problem) {
        Loaded {
            entries = List.copyOf(entries);
            rejected = List.copyOf(rejected);
        }
    }

    private final Path file;
    private final Clock clock;

    CheckpointFile(Path dir, Clock clock) {
        this.file = dir.resolve(NAME);
        this.clock = clock;
    }

    Path path() {
        return file;
    }

    Loaded load() {
        byte[] bytes;
        try {
            if (!new PathTrust(dev.limpet.terminal.os.Posix.getuid()).ownFileIfPresent(file)) {
                return new Loaded(Outcome.MISSING, List.of(), List.of(), null);
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            return new Loaded(Outcome.FOREIGN, List.of(), List.of(), "the tmux checkpoint " + file + " cannot be trusted: " + e.getMessage());
        }
        JsonNode root;
        try {
            root = JSON.readTree(new String(bytes, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return aside(Outcome.CORRUPT, "the tmux checkpoint " + file + " is not JSON (" + firstLine(e.getMessage()) + ")");
        }
        if (root == null || !root.isObject() || !root.path("version").isInt() || !root.path("sessions").isArray()) {
            return aside(Outcome.CORRUPT, "the tmux checkpoint " + file + " lacks its version or sessions");
        }
        int version = root.path("version").asInt();
        if (version != Checkpoint.VERSION) {
            return aside(Outcome.FOREIGN, "the tmux checkpoint " + file + " is version " + version + ", this limpet reads version "
                    + Checkpoint.VERSION);
        }
        Instant written = instant(root.path("timestamp"));
        if (written == null) {
            return aside(Outcome.CORRUPT, "the tmux checkpoint " + file + " has no valid timestamp");
        }
        List<Checkpoint.Entry> entries = new ArrayList<>();
        List<String> rejected = new ArrayList<>();
        for (JsonNode n : root.path("sessions")) {
            String id = n.path("session_id").asText(null);
            String tmuxName = n.path("tmux_name").asText(null);
            if (id == null || !SessionIds.isValid(id) || !TmuxIds.isValid(tmuxName) || !TmuxIds.forSession(id).equals(tmuxName)) {
                if (tmuxName != null) {
                    rejected.add(tmuxName);
                }
                continue;
            }
            List<String> command = new ArrayList<>();
            n.path("command").forEach(c -> command.add(c.asText()));
            entries.add(new Checkpoint.Entry(id, tmuxName, n.path("cwd").asText(null), n.path("label").asText(null), command,
                    instant(n.path("started_at")), instant(n.path("last_known_alive"))));
        }
        String problem = rejected.isEmpty() ? null : rejected.size() + " entr" + (rejected.size() == 1 ? "y" : "ies")
                + " of the tmux checkpoint had invalid or mismatched ids and were skipped";
        if (Duration.between(written, clock.instant()).compareTo(STALE_AFTER) > 0) {
            return new Loaded(Outcome.STALE, List.of(), rejected, "the tmux checkpoint " + file + " was written " + written
                    + ", more than " + STALE_AFTER.toDays() + " days ago; its entries are not used");
        }
        return new Loaded(Outcome.LOADED, entries, rejected, problem);
    }

    void save(List<Checkpoint.Entry> entries) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", Checkpoint.VERSION);
        root.put("timestamp", clock.instant().toString());
        ArrayNode sessions = root.putArray("sessions");
        for (Checkpoint.Entry e : entries) {
            ObjectNode n = sessions.addObject();
            n.put("session_id", e.sessionId());
            n.put("tmux_name", e.tmuxName());
            n.put("cwd", e.cwd());
            n.put("label", e.label());
            ArrayNode cmd = n.putArray("command");
            e.command().forEach(cmd::add);
            n.put("started_at", e.startedAt() == null ? null : e.startedAt().toString());
            n.put("last_known_alive", e.lastKnownAlive() == null ? null : e.lastKnownAlive().toString());
        }
        PrivateFiles.writeAtomically(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    }

    private Loaded aside(Outcome outcome, String problem) {
        Path bad = file.resolveSibling(NAME + ".bad-" + clock.millis());
        try {
            Files.move(file, bad);
            problem += "; moved aside to " + bad;
        } catch (IOException e) {
            problem += "; could not move it aside: " + e.getMessage();
        }
        return new Loaded(outcome, List.of(), List.of(), problem);
    }

    private static Instant instant(JsonNode n) {
        if (n == null || !n.isTextual()) {
            return null;
        }
        try {
            return Instant.parse(n.asText());
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String firstLine(String s) {
        return s == null ? "" : s.lines().findFirst().orElse("");
    }
}
