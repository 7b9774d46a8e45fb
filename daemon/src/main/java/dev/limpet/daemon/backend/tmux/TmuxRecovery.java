package dev.limpet.daemon.backend.tmux;

import dev.limpet.daemon.backend.RecoveredLaunch;
import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RecoveryReport.Count;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.protocol.SessionIds;
import dev.limpet.protocol.WarningCode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tmux backend's start-up re-adoption (as {@code RegistryRecovery} is the worker backend's):
 * the limpet sessions the private server holds are adopted again (tmux is authoritative: each
 * carries its session id in {@code @limpet_session}, and its name must be the one derived from
 * it); sessions on the private server whose names are not limpet's are killed; the checkpoint
 * gives what tmux does not keep (command, cwd, start time). Checkpointed sessions tmux no longer
 * holds are left to the store's part of recovery, which makes them {@code recoverable}.
 */
final class TmuxRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(TmuxRecovery.class);
    /** Sessions re-adopted at once. */
    static final int PARALLELISM = 4;

    /** What re-adoption needs of the backend. */
    interface Backend {
        /** Adopts one live tmux session again (a control client, a session on it, its stream continued from its tail file). */
        Adopted adopt(TmuxServer.PaneFacts pane, Checkpoint.Entry entry) throws IOException;

        void kill(String tmuxName);

        void saveCheckpoint();
    }

    /** One session adopted again: what the daemon runs, and what it was launched with. */
    record Adopted(RuntimeInfo runtime, RecoveredLaunch launch) {}

    private final TmuxServer server;
    private final CheckpointFile checkpoint;
    private final Backend backend;

    TmuxRecovery(TmuxServer server, CheckpointFile checkpoint, Backend backend) {
        this.server = server;
        this.checkpoint = checkpoint;
        this.backend = backend;
    }

    RecoveryReport run() {
        RecoveryReport.Builder report = RecoveryReport.builder();
        CheckpointFile.Loaded loaded = checkpoint.load();
        if (loaded.problem() != null) {
            LOG.warn("{}", loaded.problem());
            report.warn(WarningCode.TMUX_CHECKPOINT, loaded.problem());
        }
        Map<String, Checkpoint.Entry> known = new ConcurrentHashMap<>();
        loaded.entries().forEach(e -> known.put(e.tmuxName(), e));
        TmuxServer.Listing listing;
        try {
            listing = server.list();
        } catch (IOException e) {
            return report.count(Count.FAILED, known.size()).warn(WarningCode.TMUX_SERVER_GONE,
                    "the private tmux server does not answer (" + e.getMessage() + "); its sessions cannot be recovered now").build();
        }
        if (!listing.running()) {
            return serverGone(known, report);
        }
        List<TmuxServer.PaneFacts> ours = new ArrayList<>();
        for (TmuxServer.PaneFacts p : listing.sessions().values()) {
            String sid = p.sessionId();
            if (!TmuxIds.isValid(p.tmuxName()) || sid == null || !SessionIds.isValid(sid) || !TmuxIds.forSession(sid).equals(p.tmuxName())) {
                // Not a session limpet made (or one whose identity does not check out): it has no
                // business on limpet's private server.
                if (loaded.rejected().contains(p.tmuxName()) || TmuxIds.isValid(p.tmuxName())) {
                    backend.kill(p.tmuxName());
                    report.count(Count.PRUNED);
                } else {
                    LOG.warn("the private tmux server holds a session named '{}' that limpet did not make; leaving it", p.tmuxName());
                }
                continue;
            }
            ours.add(p);
        }
        List<String> released = new ArrayList<>();
        int failed = 0;
        List<Future<Adopted>> adopted = adoptAll(ours, known);
        for (int i = 0; i < ours.size(); i++) {
            TmuxServer.PaneFacts p = ours.get(i);
            try {
                Adopted a = adopted.get(i).get();
                released.add(p.tmuxName());
                report.recovered(a.runtime(), a.launch());
                LOG.info("session {} re-adopted from tmux {}: pid {}", p.sessionId(), p.tmuxName(), p.pid());
            } catch (ExecutionException | InterruptedException e) {
                failed++;
                Throwable why = e instanceof ExecutionException ? e.getCause() : e;
                LOG.warn("session {}: cannot re-adopt tmux session {}: {}", p.sessionId(), p.tmuxName(), why.getMessage());
            }
        }
        try {
            // A program still held back (the previous daemon died between its spawn and its start) starts now.
            server.releaseStart(released);
        } catch (IOException e) {
            LOG.warn("cannot release sessions held back at their start: {}", e.getMessage());
        }
        int gone = (int) known.keySet().stream().filter(n -> !listing.sessions().containsKey(n)).count();
        if (gone > 0) {
            LOG.info("{} checkpointed tmux session(s) are gone; the store makes them recoverable", gone);
        }
        if (failed > 0) {
            report.count(Count.FAILED, failed).warn(WarningCode.TMUX_SERVER_GONE, failed + " tmux session(s) could not be re-adopted");
        }
        backend.saveCheckpoint();
        return report.build();
    }

    /** The private server is not running (host reboot, server killed): its sessions are gone; a new server starts. */
    private RecoveryReport serverGone(Map<String, Checkpoint.Entry> known, RecoveryReport.Builder report) {
        if (!known.isEmpty()) {
            String msg = "the private tmux server is not running: its " + known.size()
                    + " checkpointed session(s) are gone (host reboot or server killed) and become recoverable";
            LOG.warn(msg);
            report.warn(WarningCode.TMUX_SERVER_GONE, msg);
        }
        try {
            server.ensureRunning();
        } catch (TmuxUnavailableException e) {
            report.warn(WarningCode.TMUX_SERVER_GONE, e.getMessage());
        }
        backend.saveCheckpoint();
        return report.build();
    }

    /** Each re-adoption starts a control client (a process): a few at a time, not one by one. The results keep {@code ours}' order. */
    private List<Future<Adopted>> adoptAll(List<TmuxServer.PaneFacts> ours, Map<String, Checkpoint.Entry> known) {
        List<Future<Adopted>> adopted = new ArrayList<>();
        try (var pool = Executors.newFixedThreadPool(PARALLELISM, Thread.ofPlatform().daemon().name("tmux-adopt-", 0).factory())) {
            for (TmuxServer.PaneFacts p : ours) {
                Checkpoint.Entry entry = known.getOrDefault(p.tmuxName(),
                        new Checkpoint.Entry(p.sessionId(), p.tmuxName(), null, null, List.of(), null, null));
                adopted.add(pool.submit(() -> backend.adopt(p, entry)));
            }
        }
        return adopted;
    }
}
