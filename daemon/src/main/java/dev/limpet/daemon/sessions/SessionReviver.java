package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.daemon.revive.RestoreMarker;
import dev.limpet.daemon.revive.Revivals;
import dev.limpet.daemon.revive.RevivePlan;
import dev.limpet.daemon.revive.RevivePlanner;
import dev.limpet.daemon.sessions.SessionService.Revived;
import dev.limpet.daemon.store.LaunchIntent;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.WarningCode;
import dev.limpet.terminal.journal.JournalFormat;
import dev.limpet.terminal.journal.JournalReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Revive: starts a {@code recoverable} session's program again from its launch intent,
 * with its journal's tail as history, one revive per session at a time. Also what makes a session
 * revivable while it runs: its launch plan, its journal, its sampled working directory.
 */
final class SessionReviver {
    /** The service's logger: a revive is a session transition, logged under one name. */
    private static final Logger LOG = LoggerFactory.getLogger(SessionService.class);

    /** What the service does once a revived program runs, in this order. */
    interface Started {
        /** Program {@code pid} runs: the size it was given is recorded, its orphan clock starts and its conversation is looked for. */
        void running(String id, long pid, int cols, int rows);

        /** Clients learn the new session list; returns the session as it is now. */
        SessionInfo broadcast(String id);
    }

    private final SessionStore store;
    private final Backend backend;
    private final Clock clock;
    private final ActivityLedger activity;
    private final SessionEnvironment environment;
    private final Supplier<SessionEvents> events;
    private final Started started;
    private final UntouchedRevivals untouched;
    private volatile ReviveSettings revive = ReviveSettings.withoutJournal();
    private volatile RevivePlanner planner = planner(revive);
    private final Revivals<Revived> revivals = new Revivals<>();

    SessionReviver(SessionStore store, Backend backend, Clock clock, ActivityLedger activity, SessionEnvironment environment,
            Supplier<SessionEvents> events, UntouchedRevivals untouched, Started started) {
        this.untouched = untouched;
        this.store = store;
        this.backend = backend;
        this.clock = clock;
        this.activity = activity;
        this.environment = environment;
        this.events = events;
        this.started = started;
    }

    void setSettings(ReviveSettings settings) {
        this.revive = settings;
        this.planner = planner(settings);
    }

    ReviveSettings settings() {
        return revive;
    }

    private static RevivePlanner planner(ReviveSettings settings) {
        return new RevivePlanner(settings.profiles(), Files::isDirectory, Path.of(System.getProperty("user.home")),
                settings.conversations());
    }

    /** How a new session's program is started so that a revive can continue it (its agent kind and conversation). */
    RevivePlanner.Launch launch(List<String> argv) {
        return planner.launch(argv);
    }

    /** See {@link SessionService#reviveOnOpen}. */
    boolean reviveOnOpen(String id, Integer cols, Integer rows) {
        if (!isRecoverable(id) && !revivals.inFlight(id)) {
            return false;
        }
        try {
            revivals.run(id, () -> reviveNow(id, false, cols, rows));
            return true;
        } catch (ProtocolException e) {
            if (e.code() == ErrorCode.SESSION_NOT_RECOVERABLE && backend.isRunning(id)) {
                return false; // revived by someone else just before us
            }
            throw e;
        }
    }

    /** See {@link SessionService#revive}. */
    Revived revive(String id, boolean fresh, Integer cols, Integer rows) {
        return revivals.run(id, () -> reviveNow(id, fresh, cols, rows)).result();
    }

    private boolean isRecoverable(String id) {
        return store.find(id).map(s -> SessionInfo.RECOVERABLE.equals(s.state())).orElse(false) && !backend.isRunning(id);
    }

    private Revived reviveNow(String id, boolean fresh, Integer cols, Integer rows) {
        StoredSession s = store.find(id).orElseThrow(() -> SessionService.notFound(id));
        LaunchIntent intent = store.intent(id);
        if (backend.isRunning(id)) {
            throw new ProtocolException(ErrorCode.SESSION_NOT_RECOVERABLE, "session " + id + " is running; a live session is never revived");
        }
        if (!SessionInfo.RECOVERABLE.equals(s.state()) || intent.closedOnPurpose()) {
            throw new ProtocolException(ErrorCode.SESSION_NOT_RECOVERABLE, "session " + id + " is " + s.state()
                    + (intent.closedOnPurpose() ? " (closed on purpose)" : "") + "; only a recoverable session is revived");
        }
        int c = cols != null ? cols : intent.cols();
        int r = rows != null ? rows : intent.rows();
        Sizes.requireValid(c, r);
        boolean journal = intent.journal() && revive.journalDir() != null;
        String conversation = intent.conversationId();
        JournalReader.Tail tail = journal ? JournalReader.tail(JournalFormat.file(revive.journalDir(), id), revive.historyBytes())
                : JournalReader.Tail.EMPTY;
        if (conversation == null && !fresh && journal) {
            conversation = conversationFromJournal(s.command(), intent);
        }
        if (conversation == null && !fresh) {
            conversation = conversationFromAgentFiles(s, intent);
        }
        RevivePlan plan = planner.plan(id, s.command(), Path.of(s.cwd()), intent.lastCwd() == null ? null : Path.of(intent.lastCwd()),
                intent.agentKind(), conversation, fresh);
        List<String> warnings = new ArrayList<>(plan.warnings());
        if (tail.warning() != null) {
            warnings.add(tail.warning());
        }
        Instant now = clock.instant();
        try {
            backend.remove(id); // the worker of a revive that did not take may still hold the session
        } catch (BackendException e) {
            // nothing held: the usual case after a reboot
        }
        SpawnSpec.Journal j = journal ? journalFor(id, tail.data(), RestoreMarker.after(tail.data(), c, r, now, revive.zone())) : null;
        String warning = warnings.isEmpty() ? null : String.join("; ", warnings);
        LaunchIntent next = intent.withConversation(plan.agentKind(), plan.conversationId()).withLastCwd(plan.cwd().toString())
                .withSize(c, r);
        // Recorded before the spawn: a program that ends at once may be reported before spawn returns.
        store.saveIntent(next.revived(now, warning));
        store.updateRuntime(id, SessionInfo.RUNNING, null, null, null);
        activity.revived(id, plan.agentKind() != null, s.activity());
        untouched.revived(id);
        RuntimeInfo runtime;
        try {
            runtime = backend.spawn(new SpawnSpec(id, environment.withHooks(plan.argv(), plan.agentKind(), revive.profiles()),
                    environment.withHookVariables(environment.variables(id, intent.env()), plan.agentKind(), revive.profiles()),
                    plan.cwd(), c, r, j));
        } catch (BackendException e) {
            activity.ended(id);
            untouched.forget(id);
            store.updateRuntime(id, SessionInfo.RECOVERABLE, null, null, null);
            store.saveIntent(intent.withReason("revive failed: " + e.getMessage()));
            throw e;
        }
        synchronized (store) { // against sessionExited's update of the same row
            if (store.find(id).map(x -> SessionInfo.RUNNING.equals(x.state())).orElse(false)) {
                // Still running as far as we know: its revive time is its program's start.
                store.saveIntent(next.revived(clock.instant(), warning));
                store.updateRuntime(id, SessionInfo.RUNNING, runtime.pid(), null, null);
            }
        }
        started.running(id, runtime.pid(), c, r);
        LOG.info("session {} recoverable -> running (revive{}) argv0={} cwd={}{}", id, fresh ? ", fresh" : "",
                Path.of(plan.argv().getFirst()).getFileName(), plan.cwd(), warning == null ? "" : " warnings: " + warning);
        if (warning != null) {
            events.get().warning(WarningCode.SESSION_REVIVED_WITH_WARNINGS, "session " + id + ": " + warning);
        }
        return new Revived(started.broadcast(id), warnings);
    }

    /**
     * The conversation the agent saved in its own files after the program started, in its
     * directory, that no other session holds (Codex: its rollout files; the id is not chosen at launch).
     */
    private String conversationFromAgentFiles(StoredSession s, LaunchIntent intent) {
        var profile = intent.agentKind() != null ? revive.profiles().byName(intent.agentKind()) : revive.profiles().match(s.command());
        if (profile.isEmpty()) {
            return null;
        }
        Instant started = intent.revivedAt() != null ? intent.revivedAt() : s.createdAt();
        Set<String> taken = new HashSet<>();
        for (StoredSession other : store.list()) {
            String id = other.id().equals(s.id()) ? null : store.intent(other.id()).conversationId();
            if (id != null) {
                taken.add(id);
            }
        }
        return revive.conversations().find(profile.get(), Path.of(s.cwd()), started.minusSeconds(1), taken).orElse(null);
    }

    /** The id the agent printed, found in its journal (for agents whose id limpet does not choose). */
    private String conversationFromJournal(List<String> argv, LaunchIntent intent) {
        var profile = intent.agentKind() != null ? revive.profiles().byName(intent.agentKind()) : revive.profiles().match(argv);
        if (profile.isEmpty() || profile.get().idPattern() == null) {
            return null;
        }
        JournalReader.Tail all = JournalReader.tail(JournalFormat.file(revive.journalDir(), intent.sessionId()),
                (int) Math.min(Integer.MAX_VALUE, revive.journalLimit()));
        return profile.get().findId(new String(all.data(), StandardCharsets.ISO_8859_1)).orElse(null);
    }

    void deleteJournal(String id) {
        if (revive.journalDir() == null) {
            return;
        }
        Path file = JournalFormat.file(revive.journalDir(), id);
        for (Path f : List.of(file, JournalFormat.previous(file))) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                LOG.warn("session {}: cannot delete its journal {}: {}", id, f, e.toString());
            }
        }
    }

    /** Session {@code id}'s journal; {@code history} and {@code marker} (or nulls) start it when revived. */
    SpawnSpec.Journal journalFor(String id, byte[] history, String marker) {
        return new SpawnSpec.Journal(JournalFormat.file(revive.journalDir(), id), revive.journalLimit(), history, marker);
    }

    /** Records where each running session's program is now ({@code /proc/<pid>/cwd}); run at a low rate. */
    void sampleCwds() {
        for (RuntimeInfo r : backend.list()) {
            if (!r.running() || r.pid() <= 0) {
                continue;
            }
            try {
                Path cwd = Files.readSymbolicLink(Path.of("/proc", Long.toString(r.pid()), "cwd"));
                LaunchIntent intent = store.intent(r.sessionId());
                if (store.find(r.sessionId()).isPresent() && !cwd.toString().equals(intent.lastCwd())) {
                    store.saveIntent(intent.withLastCwd(cwd.toString()));
                }
            } catch (IOException | RuntimeException e) {
                // gone meanwhile, or not ours to read: the last known cwd stays
            }
        }
    }
}
