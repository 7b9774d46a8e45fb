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
 * Decides how a {@code recoverable} session starts again (pure: no I/O, the file system's answers
 * come in as a predicate and a {@link Conversations}). The rules:
 * <ul>
 *   <li>an agent continues its own conversation ({@code resume} with its id), with the person's own
 *       flags ({@code {options}}) and in its launch directory; {@code fresh} starts a new one;</li>
 *   <li>a conversation the agent never saved (no message was sent) cannot be resumed: an agent
 *       whose id limpet chooses starts it again under the same id, any other starts afresh;</li>
 *   <li>an unknown id: a profile that knows where the agent saves conversations and found none
 *       starts afresh (there is nothing to continue); the argv the person gave when it chose its
 *       own conversation ({@code claude --continue}) runs again as given; else the profile's
 *       labelled fallback, or {@code agent_conversation_missing} rather than a silent fresh start;</li>
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
    private final Conversations conversations;

    public RevivePlanner(AgentProfiles profiles, Predicate<Path> isDirectory, Path home) {
        this(profiles, isDirectory, home, Conversations.UNKNOWN);
    }

    public RevivePlanner(AgentProfiles profiles, Predicate<Path> isDirectory, Path home, Conversations conversations) {
        this.profiles = profiles;
        this.isDirectory = isDirectory;
        this.home = home;
        this.conversations = conversations;
    }

    /** What a new session's agent profile adds at launch: the argv to run and the id it was given. */
    public record Launch(List<String> argv, String agentKind, String conversationId) {}

    public Launch launch(List<String> argv) {
        Optional<AgentProfile> p = profiles.match(argv);
        if (p.isEmpty()) {
            return new Launch(argv, null, null);
        }
        if (!p.get().choosesId() || p.get().choosesConversation(argv)) {
            // The person chose the conversation (--continue, --resume X): adding an id would make the CLI refuse to
            // start; its id comes from the agent's hook or files instead.
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
            List<String> kept = p.kept(argv);
            if (fresh) {
                return startAfresh(p, kept, cwd, warnings);
            }
            if (conversationId != null) {
                if (conversations.saved(p, conversationId).orElse(true)) {
                    return new RevivePlan(p.expand(p.resume(), argv, conversationId), cwd, p.name(), conversationId, warnings);
                }
                if (p.choosesId()) {
                    // Never saved (no message was sent): resuming it fails, starting it under the same id works.
                    return new RevivePlan(p.launchArgv(kept, conversationId), cwd, p.name(), conversationId, warnings);
                }
                return startAfresh(p, kept, cwd, warnings);
            }
            if (p.choosesConversation(argv)) {
                warnings.add("the " + p.name() + " conversation of this session is not known; started it as it was first started ("
                        + String.join(" ", argv.subList(1, argv.size())) + ")");
                return new RevivePlan(argv, cwd, p.name(), null, warnings);
            }
            if (p.store() != null) {
                // The store was searched (the caller passes what it found) and holds nothing of this session.
                warnings.add("no saved " + p.name() + " conversation of this session was found; started a new one");
                return startAfresh(p, kept, cwd, warnings);
            }
            if (p.fallback() != null) {
                List<String> fallback = p.expand(p.fallback(), argv, null);
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

    private static RevivePlan startAfresh(AgentProfile p, List<String> kept, Path cwd, List<String> warnings) {
        if (p.choosesId()) {
            String id = AgentProfile.newId();
            return new RevivePlan(p.launchArgv(kept, id), cwd, p.name(), id, warnings);
        }
        return new RevivePlan(kept, cwd, p.name(), null, warnings);
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
