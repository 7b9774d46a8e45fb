package dev.limpet.daemon.revive;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Decides how a {@code recoverable} session starts again (pure: no I/O, the file system's answer
 * comes in as a predicate). The rules of issue 13:
 * <ul>
 *   <li>an agent continues its own conversation ({@code resume} with its id); {@code fresh} starts a
 *       new one; an unknown id takes the profile's labelled fallback, or is refused with
 *       {@code agent_conversation_missing} rather than silently starting fresh;</li>
 *   <li>a shell starts fresh in its last known directory;</li>
 *   <li>anything else runs its command again where it was launched;</li>
 *   <li>a directory that is gone becomes {@code $HOME}, with a warning.</li>
 * </ul>
 */
public final class RevivePlanner {
    static final Set<String> SHELLS = Set.of("bash", "zsh", "sh", "dash", "fish", "ksh", "mksh", "tcsh", "csh", "nu", "elvish");

    private final AgentProfiles profiles;
    private final Predicate<Path> isDirectory;
    private final Path home;

    public RevivePlanner(AgentProfiles profiles, Predicate<Path> isDirectory, Path home) {
        this.profiles = profiles;
        this.isDirectory = isDirectory;
        this.home = home;
    }

    /** What a new session's agent profile adds at launch: the argv to run and the id it was given. */
    public record Launch(List<String> argv, String agentKind, String conversationId) {}

    public Launch launch(List<String> argv) {
        Optional<AgentProfile> p = profiles.match(argv);
        if (p.isEmpty()) {
            return new Launch(argv, null, null);
        }
        if (!p.get().choosesId()) {
            return new Launch(argv, p.get().name(), null);
        }
        String id = AgentProfile.newId();
        return new Launch(p.get().launchArgv(argv, id), p.get().name(), id);
    }

    /**
     * @param argv           the session's argv as it was asked for (without launch arguments)
     * @param launchCwd      where it was started
     * @param lastCwd        where it was last seen; null: unknown
     * @param agentKind      its stored agent kind; null: recognised again from argv
     * @param conversationId its conversation id, stored or found in its output; null: unknown
     * @param fresh          start a new conversation instead of continuing
     */
    public RevivePlan plan(String sessionId, List<String> argv, Path launchCwd, Path lastCwd, String agentKind, String conversationId,
            boolean fresh) {
        List<String> warnings = new ArrayList<>();
        Optional<AgentProfile> profile = agentKind != null ? profiles.byName(agentKind) : profiles.match(argv);
        if (profile.isPresent()) {
            AgentProfile p = profile.get();
            Path cwd = existingOr(launchCwd, warnings);
            if (fresh) {
                if (p.choosesId()) {
                    String id = AgentProfile.newId();
                    return new RevivePlan(p.launchArgv(argv, id), cwd, p.name(), id, warnings);
                }
                return new RevivePlan(argv, cwd, p.name(), null, warnings);
            }
            if (conversationId != null) {
                return new RevivePlan(AgentProfile.expand(p.resume(), argv, conversationId), cwd, p.name(), conversationId, warnings);
            }
            if (p.fallback() != null) {
                List<String> fallback = AgentProfile.expand(p.fallback(), argv, null);
                warnings.add("the " + p.name() + " conversation of this session is not known; continued the most recent one instead ("
                        + String.join(" ", fallback.subList(1, fallback.size())) + ")");
                return new RevivePlan(fallback, cwd, p.name(), null, warnings);
            }
            throw new ProtocolException(ErrorCode.AGENT_CONVERSATION_MISSING, "session " + sessionId + " runs " + p.name()
                    + " but its conversation id is not known, so it cannot be continued; start a new conversation instead"
                    + " (limpet revive --fresh " + sessionId + ", or Restart: new in the web UI)");
        }
        if (isShell(argv)) {
            Path cwd = existingOr(lastCwd != null ? lastCwd : launchCwd, warnings);
            return new RevivePlan(argv, cwd, null, null, warnings);
        }
        return new RevivePlan(argv, existingOr(launchCwd, warnings), null, null, warnings);
    }

    static boolean isShell(List<String> argv) {
        if (argv.isEmpty()) {
            return false;
        }
        Path name = Path.of(argv.getFirst()).getFileName();
        return name != null && SHELLS.contains(name.toString().replaceFirst("^-", ""));
    }

    private Path existingOr(Path cwd, List<String> warnings) {
        if (cwd != null && isDirectory.test(cwd)) {
            return cwd;
        }
        warnings.add("the directory " + cwd + " is gone; started in " + home + " instead");
        return home;
    }
}
