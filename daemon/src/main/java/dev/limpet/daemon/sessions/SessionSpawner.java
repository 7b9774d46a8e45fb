package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.daemon.revive.EnvAllowList;
import dev.limpet.daemon.revive.RevivePlanner;
import dev.limpet.daemon.store.LaunchIntent;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.SessionIds;
import dev.limpet.protocol.SessionInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new session: the request checked (command, size, directory, label), the session stored as
 * starting with its launch intent (what a revive needs), its program started by the backend (an
 * agent with its hooks and, where it can be told, a conversation id of its own), and then running.
 * A program that cannot start leaves nothing behind.
 */
final class SessionSpawner {
    private static final Logger LOG = LoggerFactory.getLogger(SessionService.class);

    private final SessionStore store;
    private final Backend backend;
    private final Clock clock;
    private final SessionEnvironment environment;
    private final SessionReviver reviver;
    private final ActivityLedger activity;
    private final SessionReviver.Started started;

    SessionSpawner(SessionStore store, Backend backend, Clock clock, SessionEnvironment environment, SessionReviver reviver,
            ActivityLedger activity, SessionReviver.Started started) {
        this.store = store;
        this.backend = backend;
        this.clock = clock;
        this.environment = environment;
        this.reviver = reviver;
        this.activity = activity;
        this.started = started;
    }

    SessionInfo spawn(SpawnRequest req) {
        List<String> argv = req.command() == null || req.command().isEmpty() ? SessionEnvironment.defaultShell()
                : List.copyOf(req.command());
        if (argv.stream().anyMatch(a -> a == null || a.indexOf('\0') >= 0)) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "command arguments must be strings without NUL");
        }
        int cols = req.cols() == null ? 80 : req.cols();
        int rows = req.rows() == null ? 24 : req.rows();
        Sizes.requireValid(cols, rows);
        if (req.cwd() != null && req.cwd().indexOf('\0') >= 0) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "cwd must not contain a NUL character");
        }
        Path cwd = Path.of(req.cwd() == null || req.cwd().isBlank() ? System.getProperty("user.home") : req.cwd());
        if (!cwd.isAbsolute() || !Files.isDirectory(cwd)) {
            throw new ProtocolException(ErrorCode.SPAWN_FAILED, "cwd " + cwd + " is not an existing absolute directory");
        }
        String label = req.label() == null ? Labels.fromCommand(argv) : Labels.requireValid(req.label());
        String id = freshId();
        Map<String, String> env = environment.variables(id, req.env());
        RevivePlanner.Launch launch = reviver.launch(argv);
        boolean journal = reviver.settings().journalDir() != null && !Boolean.FALSE.equals(req.journal());
        store.insert(new StoredSession(id, label, argv, cwd.toString(), clock.instant(), SessionInfo.STARTING, null, null, null));
        store.saveIntent(new LaunchIntent(id, cwd.toString(), EnvAllowList.keep(req.env()), launch.agentKind(), launch.conversationId(),
                cols, rows, false, journal, null, null));
        RuntimeInfo runtime;
        activity.track(id, launch.agentKind() != null, Activity.UNKNOWN);
        try {
            List<String> hooked = environment.withHooks(launch.argv(), launch.agentKind(), reviver.settings().profiles());
            runtime = backend.spawn(new SpawnSpec(id, hooked, environment.withHookVariables(env, launch.agentKind(),
                    reviver.settings().profiles()), cwd, cols, rows, journal ? reviver.journalFor(id, null, null) : null));
        } catch (BackendException e) {
            activity.ended(id);
            store.delete(id);
            throw e;
        }
        store.updateRuntime(id, SessionInfo.RUNNING, runtime.pid(), null, null);
        started.running(id, runtime.pid(), cols, rows);
        LOG.atInfo().addKeyValue("session_id", id).addKeyValue("from", SessionInfo.STARTING).addKeyValue("to", SessionInfo.RUNNING)
                .addKeyValue("event", "spawn").log("session {} starting -> running (spawn) label='{}' pid={}", id, SafeText.forLog(label), runtime.pid());
        return started.broadcast(id);
    }

    private String freshId() {
        for (int i = 0; i < 100; i++) {
            String id = SessionIds.generate();
            if (store.find(id).isEmpty()) {
                return id;
            }
        }
        throw new IllegalStateException("cannot find a free session id");
    }
}
