package dev.limpet.bench.figures;

import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.proc.Pss;
import dev.limpet.bench.proc.Reaper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The processes that hold a daemon's sessions: the daemon itself (embedded backend) plus, with
 * the worker backend, each session program's parent when that is not the daemon (its worker or
 * dense host) and the worker processes waiting for the next session (a warm host, a standby); with
 * the tmux backend, that parent is the private tmux server, and the daemon's control-mode clients count too.
 */
final class DataPlane {
    private final LimpetDaemon daemon;
    private final List<Long> sessionPids = new ArrayList<>();

    DataPlane(LimpetDaemon daemon) {
        this.daemon = daemon;
    }

    void addSession(long programPid) {
        sessionPids.add(programPid);
        Reaper.track(programPid);
        long worker = workerOf(programPid);
        if (worker > 0) {
            Reaper.track(worker);
        }
    }

    /** The worker holding {@code programPid}, or -1 when the daemon holds it. */
    long workerOf(long programPid) {
        long parent = Pss.parentOf(programPid);
        return parent > 1 && parent != daemon.pid() ? parent : -1;
    }

    /** The workers holding the sessions, and the daemon's worker processes that hold none yet (a dense mode's warm host). */
    Set<Long> workers() {
        Set<Long> out = new LinkedHashSet<>();
        for (long pid : sessionPids) {
            long w = workerOf(pid);
            if (w > 0) {
                out.add(w);
            }
        }
        out.addAll(idleWorkers());
        return out;
    }

    /** Worker processes the daemon started that serve no session of ours: the warm host (or the standby). */
    List<Long> idleWorkers() {
        return ProcessHandle.of(daemon.pid()).stream().flatMap(ProcessHandle::children).map(ProcessHandle::pid)
                .filter(DataPlane::isWorker).filter(p -> sessionPids.stream().noneMatch(s -> workerOf(s) == p)).toList();
    }

    private static boolean isWorker(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")),
                    StandardCharsets.UTF_8).contains("dev.limpet.worker.WorkerMain");
        } catch (IOException e) {
            return false;
        }
    }

    long daemonKb() {
        return Pss.kilobytes(daemon.pid());
    }

    List<Long> workerKbs() {
        return workers().stream().map(Pss::kilobytes).filter(k -> k >= 0).toList();
    }

    /** The daemon's tmux control-mode clients ({@code tmux -C attach}, one per session of the tmux backend), kB each. */
    List<Long> controlClientKbs() {
        return ProcessHandle.of(daemon.pid()).stream().flatMap(ProcessHandle::children)
                .filter(h -> h.info().command().map(c -> c.endsWith("/tmux")).orElse(false))
                .map(h -> Pss.kilobytes(h.pid())).filter(k -> k >= 0).toList();
    }

    /** Daemon plus workers (for the tmux backend: its server) plus tmux control clients, kB. */
    long totalKb() {
        return daemonKb() + workerKbs().stream().mapToLong(Long::longValue).sum()
                + controlClientKbs().stream().mapToLong(Long::longValue).sum();
    }
}
