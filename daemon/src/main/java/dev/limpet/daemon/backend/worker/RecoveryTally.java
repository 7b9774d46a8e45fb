package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.RecoveredLaunch;
import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RecoveryReport.Count;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.protocol.WarningCode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns recovery outcomes into the report: counts, adopted sessions, and one warning per code naming the entries. */
final class RecoveryTally {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveryTally.class);

    private final List<RegistryRecovery.Outcome> outcomes;
    private final Function<RegistryRecovery.Recovered, RecoveredLaunch> adopt;

    RecoveryTally(List<RegistryRecovery.Outcome> outcomes, Function<RegistryRecovery.Recovered, RecoveredLaunch> adopt) {
        this.outcomes = outcomes;
        this.adopt = adopt;
    }

    RecoveryReport report() {
        Map<RegistryRecovery.Recovered, Future<RecoveredLaunch>> adopted = adoptAll();
        RecoveryReport.Builder report = RecoveryReport.builder();
        Map<WarningCode, List<String>> warned = new LinkedHashMap<>();
        for (RegistryRecovery.Outcome o : outcomes) {
            switch (o) {
                case RegistryRecovery.Recovered r -> {
                    try {
                        RecoveredLaunch launch = outcome(adopted.get(r));
                        report.recovered(new RuntimeInfo(launch.sessionId(), r.info().childPid(), r.info().running(),
                                r.info().running() ? null : exitOf(r.info()), r.info().cols(), r.info().rows(), r.info().endOffset()), launch);
                    } catch (RuntimeException e) {
                        r.link().close();
                        report.count(Count.FAILED);
                        LOG.warn("session {}: recovered but could not follow its worker: {}", r.entry().sessionId(), e.toString());
                        warned.computeIfAbsent(WarningCode.WORKER_RECOVERY_PARTIAL, k -> new ArrayList<>())
                                .add(r.entry().sessionId() + " (" + e.getMessage() + ")");
                    }
                }
                case RegistryRecovery.Pruned p -> report.count(Count.PRUNED);
                case RegistryRecovery.Reclaimed r -> {
                    report.count(Count.PRUNED);
                    warned.computeIfAbsent(WarningCode.WORKER_RECOVERY_PARTIAL, k -> new ArrayList<>())
                            .add(name(r.file()) + " (" + r.reason() + ")");
                }
                case RegistryRecovery.Quarantined q -> {
                    report.count(Count.QUARANTINED);
                    if (q.failed()) {
                        report.count(Count.FAILED);
                    }
                    warned.computeIfAbsent(q.warning(), k -> new ArrayList<>()).add(name(q.file()) + " (" + q.reason() + ")");
                }
            }
        }
        warned.forEach((code, what) -> report.warn(code, message(code, what)));
        return report.build();
    }

    /**
     * Adopts every recovered worker at once (each adoption is a round trip to its worker: in
     * sequence, a hundred of them took most of a restart); the report keeps the outcomes' order.
     */
    private Map<RegistryRecovery.Recovered, Future<RecoveredLaunch>> adoptAll() {
        Map<RegistryRecovery.Recovered, Future<RecoveredLaunch>> adopted = new IdentityHashMap<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (RegistryRecovery.Outcome o : outcomes) {
                if (o instanceof RegistryRecovery.Recovered r) {
                    adopted.put(r, pool.submit(() -> adopt.apply(r)));
                }
            }
        }
        return adopted;
    }

    private static RecoveredLaunch outcome(Future<RecoveredLaunch> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while adopting a recovered worker", e);
        }
    }

    private static String message(WarningCode code, List<String> what) {
        String head = switch (code) {
            case WORKER_REGISTRY_CORRUPT -> "unreadable worker registry entries were quarantined: ";
            case WORKER_PROTOCOL_MISMATCH -> "workers speaking an incompatible protocol were quarantined (still running): ";
            default -> "some workers could not be recovered: ";
        };
        return head + String.join("; ", what);
    }

    private static String name(Path file) {
        return file.getFileName().toString().replaceFirst("\\.json$", "");
    }

    private static dev.limpet.terminal.pty.ExitStatus exitOf(dev.limpet.workerapi.rpc.WorkerPayloads.Info i) {
        return i.exitSignal() != 0 ? dev.limpet.terminal.pty.ExitStatus.killedBy(i.exitSignal())
                : dev.limpet.terminal.pty.ExitStatus.exited(Math.max(-1, i.exitCode()));
    }
}
