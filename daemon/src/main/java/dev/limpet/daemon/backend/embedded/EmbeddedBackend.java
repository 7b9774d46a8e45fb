package dev.limpet.daemon.backend.embedded;

import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.BackendException;
import dev.limpet.daemon.backend.BackendListener;
import dev.limpet.daemon.backend.InputOrigin;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.daemon.backend.PtySessionAttachment;
import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.backend.ScreenCapture;
import dev.limpet.daemon.backend.ScreenEvidence;
import dev.limpet.daemon.backend.SpawnSpec;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.terminal.pty.PtyException;
import dev.limpet.terminal.pty.PtyProcess;
import dev.limpet.terminal.pty.PtySpawnSpec;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.terminal.session.PtySession;
import dev.limpet.terminal.session.VtScreen;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PTYs inside the daemon process. Simple and fast, but every session ends with the daemon: it is
 * the fallback when workers cannot run, and the daemon says so loudly.
 */
public final class EmbeddedBackend implements Backend, ScreenCapture, dev.limpet.daemon.backend.PasteMode {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedBackend.class);
    private final Map<String, PtySession> sessions = new ConcurrentHashMap<>();
    private final int logCapacity;
    private volatile BackendListener listener = (id, status) -> {};

    public EmbeddedBackend(int logCapacity) {
        this.logCapacity = logCapacity;
    }

    @Override
    public String name() {
        return "embedded";
    }

    @Override
    public boolean survivesRestart() {
        return false;
    }

    @Override
    public void start(BackendListener listener) {
        this.listener = listener;
    }

    @Override
    public RuntimeInfo spawn(SpawnSpec spec) {
        if (sessions.containsKey(spec.sessionId())) {
            throw new BackendException(ErrorCode.BAD_REQUEST, "session " + spec.sessionId() + " already exists");
        }
        PtyProcess pty;
        try {
            pty = PtyProcess.spawn(new PtySpawnSpec(spec.argv(), spec.env(), spec.cwd(), spec.cols(), spec.rows()));
        } catch (PtyException e) {
            throw new BackendException(ErrorCode.SPAWN_FAILED, e.getMessage(), e);
        }
        SpawnSpec.Journal j = spec.journal();
        dev.limpet.terminal.journal.JournalWriter journal = j == null ? null : new dev.limpet.terminal.journal.JournalWriter(j.file(),
                j.limitBytes(), message -> LOG.warn("session {}: {}", spec.sessionId(), message));
        if (journal != null && j.marker() != null) {
            journal.appendText(j.marker());
        }
        PtySession session = new PtySession(spec.sessionId(), pty, logCapacity,
                new VtScreen(spec.cols(), spec.rows()), status -> listener.sessionExited(spec.sessionId(), status),
                j == null ? null : j.prelude(), journal);
        ScreenEvidence.watch(session, () -> listener);
        sessions.put(spec.sessionId(), session);
        LOG.info("session {} spawned: pid {} {}x{}", spec.sessionId(), pty.pid(), spec.cols(), spec.rows());
        return runtime(session);
    }

    @Override
    public Attachment attach(String sessionId, long since, long window, OutputListener outputListener) {
        PtySession s = session(sessionId);
        return PtySessionAttachment.open(s, since, window, true, () -> runtime(s), outputListener);
    }

    @Override
    public void input(String sessionId, byte[] data, InputOrigin origin) {
        PtySession s = running(sessionId);
        try {
            s.write(data);
        } catch (IOException e) {
            throw new BackendException(ErrorCode.SESSION_NOT_RUNNING, "session " + sessionId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public long resize(String sessionId, int cols, int rows) {
        PtySession s = running(sessionId);
        try {
            return s.resize(cols, rows);
        } catch (IOException e) {
            throw new BackendException(ErrorCode.SESSION_NOT_RUNNING, "session " + sessionId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void signal(String sessionId, Signal signal) {
        PtySession s = running(sessionId);
        try {
            s.signal(signal);
        } catch (IOException e) {
            throw new BackendException(ErrorCode.INTERNAL_ERROR, "cannot signal session " + sessionId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void remove(String sessionId) {
        PtySession s = sessions.remove(sessionId);
        if (s == null) {
            throw BackendException.notFound(sessionId);
        }
        if (s.running()) {
            try {
                s.signal(Signal.KILL);
            } catch (IOException e) {
                LOG.warn("session {}: SIGKILL on remove failed: {}", sessionId, e.getMessage());
            }
        }
        s.close();
    }

    @Override
    public List<RuntimeInfo> list() {
        return sessions.values().stream().map(EmbeddedBackend::runtime).toList();
    }

    @Override
    public RecoveryReport recover() {
        // Embedded sessions die with the daemon: there is never anything to recover.
        return RecoveryReport.EMPTY;
    }

    @Override
    public void shutdown() {
        for (PtySession s : sessions.values()) {
            try {
                if (s.running()) {
                    s.signal(Signal.HUP);
                }
            } catch (IOException e) {
                LOG.warn("session {}: SIGHUP at shutdown failed: {}", s.id(), e.getMessage());
            }
            s.close();
        }
        sessions.clear();
    }

    @Override
    public String captureText(String sessionId) {
        return session(sessionId).captureText();
    }

    @Override
    public dev.limpet.protocol.ScreenDump captureScreen(String sessionId) {
        return session(sessionId).captureScreen();
    }

    @Override
    public boolean bracketedPaste(String sessionId) {
        return session(sessionId).bracketedPaste();
    }

    private static RuntimeInfo runtime(PtySession s) {
        return new RuntimeInfo(s.id(), s.pid(), s.running(), s.exit(), s.cols(), s.rows(), s.endOffset());
    }

    private PtySession session(String id) {
        PtySession s = sessions.get(id);
        if (s == null) {
            throw BackendException.notFound(id);
        }
        return s;
    }

    private PtySession running(String id) {
        PtySession s = session(id);
        if (!s.running()) {
            throw BackendException.notRunning(id);
        }
        return s;
    }
}
