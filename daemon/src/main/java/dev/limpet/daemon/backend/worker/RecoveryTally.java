package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.RecoveredSession;
import dev.limpet.daemon.backend.RecoveryReport;
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
    private final Function<RegistryRecovery.Recovered, RecoveredSession> adopt;

    RecoveryTally(List<RegistryRecovery.Outcome> outcomes, Function<RegistryRecovery.Recovered, RecoveredSession> adopt) {
        this.outcomes = outcomes;
        this.adopt = adopt;
    }

    RecoveryReport report() {
        Map<RegistryRecovery.Recovered, Future<RecoveredSession>> adopted = adoptAll();
        List<RuntimeInfo> recovered = new ArrayList<>();
        List<RecoveredSession> sessions = new ArrayList<>();
        int pruned = 0;
        int failed = 0;
        int quarantined = 0;
        Map<WarningCode, List<String>> warned = new LinkedHashMap<>();
        for (RegistryRecovery.Outcome o : outcomes) {
            switch (o) {
                case RegistryRecovery.Recovered r -> {
                    try {
                        RecoveredSession s = outcome(adopted.get(r));
                        sessions.add(s);
                        recovered.add(new RuntimeInfo(s.sessionId(), r.info().childPid(), r.info().running(),
                                r.info().running() ? null : exitOf(r.info()), r.info().cols(), r.info().rows(), r.info().endOffset()));
                    } catch (RuntimeException e) {
                        r.link().close();
                        failed++;
                        LOG.warn("session {}: recovered but could not follow its worker: {}", r.entry().sessionId(), e.toString());
                        warned.computeIfAbsent(WarningCode.WORKER_RECOVERY_PARTIAL, k -> new ArrayList<>())
                                .add(r.entry().sessionId() + " (" + e.getMessage() + ")");
                    }
                }
                case RegistryRecovery.Pruned p -> pruned++;
                case RegistryRecovery.Reclaimed r -> {
                    pruned++;
                    warned.computeIfAbsent(WarningCode.WORKER_RECOVERY_PARTIAL, k -> new ArrayList<>())
                            .add(name(r.file()) + " (" + r.reason() + ")");
                }
                case RegistryRecovery.Quarantined q -> {
                    quarantined++;
                    if (q.failed()) {
                        failed++;
                    }
                    warned.computeIfAbsent(q.warning(), k -> new ArrayList<>()).add(name(q.file()) + " (" + q.reason() + ")");
                }
            }
        }
        List<RecoveryReport.Warning> warnings = new ArrayList<>();
        warned.forEach((code, what) -> warnings.add(new RecoveryReport.Warning(code, message(code, what))));
        return new RecoveryReport(recovered, pruned, 0, failed, quarantined, warnings, sessions);
    }

    /**
     * Adopts every recovered worker at once (each adoption is a round trip to its worker: in
     * sequence, a hundred of them took most of a restart); the report keeps the outcomes' order.
     */
    private Map<RegistryRecovery.Recovered, Future<RecoveredSession>> adoptAll() {
        Map<RegistryRecovery.Recovered, Future<RecoveredSession>> adopted = new IdentityHashMap<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (RegistryRecovery.Outcome o : outcomes) {
                if (o instanceof RegistryRecovery.Recovered r) {
                    adopted.put(r, pool.submit(() -> adopt.apply(r)));
                }
            }
        }
        return adopted;
    }

    private static RecoveredSession outcome(Future<RecoveredSession> f) {
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

    private static dev.limpet.terminal.pty.ExitStatus exitOf(dev.limpet.protocol.worker.WorkerPayloads.Info i) {
        return i.exitSignal() != 0 ? dev.limpet.terminal.pty.ExitStatus.killedBy(i.exitSignal())
                : dev.limpet.terminal.pty.ExitStatus.exited(Math.max(-1, i.exitCode()));
    }
}
