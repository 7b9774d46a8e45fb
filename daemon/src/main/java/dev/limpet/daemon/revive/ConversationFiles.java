package dev.limpet.daemon.revive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@link Conversations} read from the agents' own files, where the pinned CLIs keep them (each
 * checked on the real CLI; docs/agent-activity.md):
 * <ul>
 *   <li>{@code claude}: {@code $CLAUDE_CONFIG_DIR} (else {@code ~/.claude}) {@code /projects/<dir>/<id>.jsonl},
 *       written once the first message is sent;</li>
 *   <li>{@code gemini}: {@code $GEMINI_CLI_HOME} (else {@code ~}) {@code /.gemini/tmp/<project>/chats/session-<time>-<id[0..8]>.jsonl},
 *       whose first line names the whole {@code sessionId};</li>
 *   <li>{@code codex}: {@code $CODEX_HOME} (else {@code ~/.codex}) {@code /sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl},
 *       whose first line ({@code session_meta}) holds the {@code cwd} and start {@code timestamp}; Codex has no flag
 *       to choose the id, so this is how a session's conversation is found when its hook did not report it.</li>
 * </ul>
 * Read with the daemon's environment: sessions inherit it, so the agents write where this looks.
 * Nothing here follows a symbolic link out of the agent's directory, and nothing is written.
 */
public final class ConversationFiles implements Conversations {
    public static final Set<String> STORES = Set.of("claude", "codex", "gemini");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How many rollout files a search reads at most (a person with years of Codex history has thousands). */
    private static final int MAX_ROLLOUTS_READ = 2000;
    private static final Pattern ROLLOUT_NAME =
            Pattern.compile("rollout-.+-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\\.jsonl");

    private final Map<String, String> env;

    public ConversationFiles(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    @Override
    public Optional<Boolean> saved(AgentProfile profile, String id) {
        if (profile.store() == null || !dev.limpet.protocol.ConversationIds.isValid(id)) {
            return Optional.empty();
        }
        return Optional.of(switch (profile.store()) {
            case "claude" -> claudeTranscript(id).isPresent();
            case "gemini" -> geminiChat(id).isPresent();
            case "codex" -> codexRollouts().anyMatch(f -> f.getFileName().toString().endsWith("-" + id + ".jsonl"));
            default -> false;
        });
    }

    @Override
    public Optional<String> find(AgentProfile profile, Path cwd, Instant startedAfter, Set<String> taken) {
        if (!"codex".equals(profile.store())) {
            return Optional.empty();
        }
        record Rollout(String id, Instant at) {}
        List<Rollout> found = new ArrayList<>();
        String day = startedAfter.atZone(ZoneOffset.UTC).toLocalDate().toString().replace('-', '/');
        try (Stream<Path> files = codexRollouts()) {
            files.filter(f -> datePart(f).compareTo(day) >= 0).limit(MAX_ROLLOUTS_READ).forEach(f -> {
                JsonNode meta = firstLine(f).path("payload");
                String id = meta.path("id").asText(meta.path("session_id").asText(""));
                try {
                    Instant at = Instant.parse(meta.path("timestamp").asText());
                    if (cwd.toString().equals(meta.path("cwd").asText()) && !at.isBefore(startedAfter) && !taken.contains(id)
                            && dev.limpet.protocol.ConversationIds.isValid(id)) {
                        found.add(new Rollout(id, at));
                    }
                } catch (DateTimeParseException e) {
                    // not a rollout this version writes: skipped
                }
            });
        }
        // The first conversation started after the program: a later one in the same directory is another session's.
        return found.stream().min(Comparator.comparing(Rollout::at)).map(Rollout::id);
    }

    /**
     * Codex holds its rollout open for appending while it runs (its native program, a child of the
     * {@code codex} script): the file the process tree has open under the store's {@code sessions/}
     * is its conversation. Read from {@code /proc/<pid>/fd}, which a process of the same user may read.
     */
    @Override
    public Optional<String> open(AgentProfile profile, long pid) {
        if (!"codex".equals(profile.store()) || pid <= 0) {
            return Optional.empty();
        }
        Path sessions;
        try {
            sessions = codexRoot().resolve("sessions").toRealPath();
        } catch (IOException e) {
            return Optional.empty(); // no conversation saved yet
        }
        return ProcessHandle.of(pid).stream().flatMap(p -> Stream.concat(Stream.of(p), p.descendants()))
                .flatMap(p -> openFiles(p.pid()).stream())
                .filter(f -> f.startsWith(sessions) && f.getNameCount() == sessions.getNameCount() + 4)
                .map(ConversationFiles::rolloutId).flatMap(Optional::stream).findFirst();
    }

    /** The id in a rollout's name, {@code rollout-<time>-<id>.jsonl}, where the id is a UUID. */
    static Optional<String> rolloutId(Path rollout) {
        Matcher m = ROLLOUT_NAME.matcher(rollout.getFileName().toString());
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }

    private static List<Path> openFiles(long pid) {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds) {
                try {
                    out.add(Files.readSymbolicLink(fd));
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, or not ours to read
        }
        return out;
    }

    private Optional<Path> claudeTranscript(String id) {
        Path root = dir("CLAUDE_CONFIG_DIR", ".claude").resolve("projects");
        for (Path project : children(root)) {
            Path f = project.resolve(id + ".jsonl");
            if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    private Optional<Path> geminiChat(String id) {
        Path root = dir("GEMINI_CLI_HOME", "").resolve(".gemini").resolve("tmp");
        String suffix = "-" + id.substring(0, Math.min(8, id.length())) + ".jsonl";
        for (Path project : children(root)) {
            for (Path f : children(project.resolve("chats"))) {
                String name = f.getFileName().toString();
                if (name.startsWith("session-") && name.endsWith(suffix) && id.equals(firstLine(f).path("sessionId").asText())) {
                    return Optional.of(f);
                }
            }
        }
        return Optional.empty();
    }

    /** Every rollout file, newest day last ({@code sessions/YYYY/MM/DD/rollout-*.jsonl}). */
    private Stream<Path> codexRollouts() {
        Path sessions = codexRoot().resolve("sessions");
        if (!Files.isDirectory(sessions, LinkOption.NOFOLLOW_LINKS)) {
            return Stream.empty();
        }
        try {
            return Files.find(sessions, 4, (f, a) -> a.isRegularFile() && f.getFileName().toString().startsWith("rollout-")
                    && f.getFileName().toString().endsWith(".jsonl")).sorted();
        } catch (IOException e) {
            return Stream.empty();
        }
    }

    private Path codexRoot() {
        return env.containsKey("CODEX_HOME") ? Path.of(env.get("CODEX_HOME")) : dir(null, ".codex");
    }

    /** {@code YYYY/MM/DD} of a rollout's path. */
    private static String datePart(Path rollout) {
        int n = rollout.getNameCount();
        return n < 4 ? "" : rollout.subpath(n - 4, n - 1).toString();
    }

    private Path dir(String override, String underHome) {
        if (override != null && env.get(override) != null && !env.get(override).isBlank()) {
            return Path.of(env.get(override));
        }
        String home = env.getOrDefault("HOME", System.getProperty("user.home"));
        return underHome.isEmpty() ? Path.of(home) : Path.of(home, underHome);
    }

    private static List<Path> children(Path dir) {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return out;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            s.forEach(out::add);
        } catch (IOException e) {
            // unreadable: nothing there for us
        }
        return out;
    }

    /** The file's first line as JSON (a missing node when it is not JSON or cannot be read). */
    private static JsonNode firstLine(Path file) {
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            // Codex's first line holds its whole system prompt (tens of kilobytes): read the line, whatever its length.
            String line = r.readLine();
            return line == null ? JSON.missingNode() : JSON.readTree(line);
        } catch (IOException | RuntimeException e) {
            return JSON.missingNode();
        }
    }
}
