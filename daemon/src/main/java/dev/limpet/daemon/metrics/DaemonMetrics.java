package dev.limpet.daemon.metrics;

import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.protocol.SessionInfo;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What the daemon counts, in one Prometheus registry (the Prometheus Java client; nothing
 * hand-written about the exposition). Sessions, attachments and bytes are read from the sessions
 * at scrape time, so the output path carries no instrumentation; events (desyncs, command
 * errors, connections, recoveries) are counted where they happen.
 *
 * <p>Label values come from small fixed sets (states, backends, desync reasons, error codes,
 * recovery outcomes) except {@code session} on the bytes counter, which names at most
 * {@link #MAX_SESSION_SERIES} sessions (the busiest) and adds the rest up under {@code _other}:
 * a daemon with a thousand sessions still exposes a bounded number of series.
 *
 * <p>Thread contract: every method may be called from any thread.
 */
public final class DaemonMetrics {
    /** Sessions named one by one on {@code limpet_session_output_bytes_total}; the rest are {@code _other}. */
    public static final int MAX_SESSION_SERIES = 50;
    static final String OTHER_SESSIONS = "_other";

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter desyncs;
    private final Counter commandErrors;
    private final Counter connectionsOpened;
    private final Counter recoveries;
    private final Gauge recoverySeconds;

    public DaemonMetrics() {
        desyncs = Counter.builder().name("limpet_desyncs_total")
                .help("pty_desync sent to clients, by reason (slow_consumer, output_lost, ack_timeout)")
                .labelNames("reason").register(registry);
        commandErrors = Counter.builder().name("limpet_command_errors_total")
                .help("command_error replies sent to clients, by error code").labelNames("code").register(registry);
        connectionsOpened = Counter.builder().name("limpet_websocket_connections_opened_total")
                .help("WebSocket connections accepted since the daemon started").register(registry);
        recoveries = Counter.builder().name("limpet_worker_recoveries_total")
                .help("sessions found at start-up, by outcome (recovered, pruned, missing, failed, quarantined)")
                .labelNames("outcome").register(registry);
        recoverySeconds = Gauge.builder().name("limpet_recovery_duration_seconds")
                .help("how long the last start-up recovery took, barrier up to barrier lifted").register(registry);
    }

    private final AtomicBoolean jvmMetrics = new AtomicBoolean();

    /**
     * The JVM's own metrics (memory pools, GC, threads), registered when first scraped: they read
     * the JVM through JMX, whose platform server and beans (with Prometheus' collectors, ~250
     * classes) would otherwise load at every start and stay in an idle daemon that nobody scrapes.
     */
    private PrometheusRegistry withJvmMetrics() {
        if (jvmMetrics.compareAndSet(false, true)) {
            JvmMetrics.builder().register(registry);
        }
        return registry;
    }

    /**
     * Reads the sessions at each scrape: {@code limpet_sessions{state,backend}},
     * {@code limpet_attachments} and {@code limpet_session_output_bytes_total{session}}.
     */
    public void watchSessions(Supplier<List<SessionInfo>> sessions, String backend) {
        GaugeWithCallback.builder().name("limpet_sessions").help("sessions by state and data plane backend")
                .labelNames("state", "backend")
                .callback(cb -> countByState(sessions.get()).forEach((state, n) -> cb.call(n, state, backend)))
                .register(registry);
        GaugeWithCallback.builder().name("limpet_attachments").help("clients attached to sessions right now")
                .callback(cb -> cb.call(sessions.get().stream().mapToInt(SessionInfo::attached).sum()))
                .register(registry);
        CounterWithCallback.builder().name("limpet_session_output_bytes").help("bytes each session has written (its end offset); "
                        + "beyond the " + MAX_SESSION_SERIES + " busiest, added up as session=\"" + OTHER_SESSIONS + "\"")
                .labelNames("session")
                .callback(cb -> outputBytes(sessions.get()).forEach((id, bytes) -> cb.call(bytes, id)))
                .register(registry);
    }

    /** {@code limpet_websocket_connections}, and {@code limpet_outbound_queue_bytes}: what waits to be sent to clients. */
    public void watchConnections(LongSupplier open, LongSupplier queuedBytes) {
        GaugeWithCallback.builder().name("limpet_websocket_connections").help("WebSocket connections open right now")
                .callback(cb -> cb.call(open.getAsLong())).register(registry);
        GaugeWithCallback.builder().name("limpet_outbound_queue_bytes")
                .help("bytes queued for clients and not yet handed to their sockets, all connections together")
                .callback(cb -> cb.call(queuedBytes.getAsLong())).register(registry);
    }

    public void desync(String reason) {
        desyncs.labelValues(reason).inc();
    }

    public void commandError(String code) {
        commandErrors.labelValues(code).inc();
    }

    public void connectionOpened() {
        connectionsOpened.inc();
    }

    /** The start-up recovery's outcome and duration. */
    public void recovered(RecoveryReport report, Duration took) {
        for (RecoveryReport.Count c : RecoveryReport.Count.values()) {
            recoveries.labelValues(c.label()).inc(report.count(c));
        }
        recoverySeconds.set(took.toNanos() / 1e9);
    }

    /** Everything, in the Prometheus text format (version 0.0.4). */
    public String scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
        try {
            PrometheusTextFormatWriter.create().write(out, withJvmMetrics().scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    public static String contentType() {
        return PrometheusTextFormatWriter.CONTENT_TYPE;
    }

    /** For an exporter that serves this registry on a port of its own. */
    public PrometheusRegistry registry() {
        return withJvmMetrics();
    }

    static Map<String, Long> countByState(List<SessionInfo> sessions) {
        Map<String, Long> byState = new TreeMap<>();
        for (String s : List.of(SessionInfo.STARTING, SessionInfo.RUNNING, SessionInfo.EXITED, SessionInfo.RECOVERABLE)) {
            byState.put(s, 0L);
        }
        sessions.forEach(s -> byState.merge(s.state(), 1L, Long::sum));
        return byState;
    }

    static Map<String, Long> outputBytes(List<SessionInfo> sessions) {
        List<SessionInfo> busiest = sessions.stream().sorted(Comparator.comparingLong(SessionInfo::endOffset).reversed()).toList();
        Map<String, Long> out = new TreeMap<>();
        long other = 0;
        for (int i = 0; i < busiest.size(); i++) {
            if (i < MAX_SESSION_SERIES) {
                out.put(busiest.get(i).id(), busiest.get(i).endOffset());
            } else {
                other += busiest.get(i).endOffset();
            }
        }
        if (busiest.size() > MAX_SESSION_SERIES) {
            out.put(OTHER_SESSIONS, other);
        }
        return out;
    }
}
