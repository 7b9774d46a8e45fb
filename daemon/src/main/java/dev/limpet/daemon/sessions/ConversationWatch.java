package dev.limpet.daemon.sessions;

import dev.limpet.daemon.revive.AgentProfile;
import dev.limpet.daemon.store.LaunchIntent;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.protocol.SessionInfo;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Learns which conversation a running agent is in from the file it holds open in its own store
 * ({@link dev.limpet.daemon.revive.Conversations#open}), for agents whose id limpet cannot choose at
 * launch (Codex). Their own report (Codex's notify) comes only when a turn ends, and their files'
 * start times cannot tell apart two agents started in one directory a second apart: on a loaded
 * machine the second one's file can be written first, and a revive after a crash would put each
 * in the other's conversation. The open file is exact.
 *
 * <p>A new program is looked at every {@link #EVERY} from its start until its conversation is known,
 * at most {@link #LOOKS} times; every running one again at the working-directory sample's low rate,
 * which also follows an agent that moved to another conversation.
 *
 * <p>Thread contract: any thread; the looks after a start run on the scheduler.
 */
final class ConversationWatch {
    private static final Logger LOG = LoggerFactory.getLogger(ConversationWatch.class);
    static final Duration EVERY = Duration.ofSeconds(1);
    static final int LOOKS = 120;

    private final SessionStore store;
    private final ScheduledExecutorService scheduler;
    private final Supplier<ReviveSettings> settings;
    private final ActivityLedger activity;

    ConversationWatch(SessionStore store, ScheduledExecutorService scheduler, Supplier<ReviveSettings> settings, ActivityLedger activity) {
        this.store = store;
        this.scheduler = scheduler;
        this.settings = settings;
        this.activity = activity;
    }

    /** Program {@code pid} of session {@code id} just started: looks until its conversation is known. */
    void started(String id, long pid) {
        if (agentWithStore(store.intent(id)).isPresent()) {
            schedule(id, pid, 1);
        }
    }

    private void schedule(String id, long pid, int look) {
        scheduler.schedule(() -> {
            boolean done;
            try {
                done = look(id, pid);
            } catch (RuntimeException e) {
                LOG.debug("session {}: looking for its agent's open conversation failed: {}", id, e.toString());
                done = false;
            }
            if (!done && look < LOOKS) {
                schedule(id, pid, look + 1);
            }
        }, EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * One look at session {@code id}'s program {@code pid}: records the conversation it holds open
     * when that is not the one recorded.
     *
     * @return whether nothing is left to learn: its conversation is known, or it is no longer that program
     */
    boolean look(String id, long pid) {
        Optional<StoredSession> s = store.find(id);
        if (s.isEmpty() || !SessionInfo.RUNNING.equals(s.get().state()) || s.get().pid() == null || s.get().pid() != pid) {
            return true;
        }
        LaunchIntent intent = store.intent(id);
        Optional<AgentProfile> profile = agentWithStore(intent);
        if (profile.isEmpty()) {
            return true;
        }
        Optional<String> open = settings.get().conversations().open(profile.get(), pid);
        open.filter(c -> !c.equals(intent.conversationId())).ifPresent(c -> activity.recordConversation(id, c, "its open file"));
        return open.isPresent() || intent.conversationId() != null;
    }

    private Optional<AgentProfile> agentWithStore(LaunchIntent intent) {
        return Optional.ofNullable(intent.agentKind()).flatMap(k -> settings.get().profiles().byName(k)).filter(p -> p.store() != null);
    }
}
