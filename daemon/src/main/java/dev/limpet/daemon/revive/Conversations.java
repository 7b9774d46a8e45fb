package dev.limpet.daemon.revive;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * What an agent's own files say about its conversations, asked by the {@link RevivePlanner} (which
 * does no I/O itself): whether a conversation was saved, so a revive resumes only what the agent can
 * resume, and which conversation a session was in when limpet could not choose its id.
 */
public interface Conversations {
    /** Knows nothing: every conversation is taken as saved, none is found. */
    Conversations UNKNOWN = new Conversations() {
        @Override
        public Optional<Boolean> saved(AgentProfile profile, String id) {
            return Optional.empty();
        }

        @Override
        public Optional<String> find(AgentProfile profile, Path cwd, Instant startedAfter, Set<String> taken) {
            return Optional.empty();
        }
    };

    /** Whether the agent saved conversation {@code id} (so it can resume it); empty when its profile names no store. */
    Optional<Boolean> saved(AgentProfile profile, String id);

    /**
     * The conversation the agent started in {@code cwd} after {@code startedAfter} that no other
     * session has ({@code taken}); empty when there is none (or the store cannot tell).
     */
    Optional<String> find(AgentProfile profile, Path cwd, Instant startedAfter, Set<String> taken);

    /**
     * The conversation running program {@code pid} (or a process it started) holds open in the
     * agent's store: what it is in now, whatever else runs in its directory; empty when it holds
     * none (or the store cannot tell).
     */
    default Optional<String> open(AgentProfile profile, long pid) {
        return Optional.empty();
    }
}
