package dev.limpet.daemon.relay;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wait of an uplink between two attempts, ended once: by its timer (the backoff), or sooner by
 * the relay answering its {@code /healthz}, which is asked each {@link #PROBE_EVERY} while the wait
 * is longer than that. One small unauthenticated request a second: a relay that is down gets
 * nothing, its TLS proxy one request a second; a relay back after a restart has its hosts back
 * within about a second, whatever the backoff.
 */
final class UplinkRetry {
    private static final Logger LOG = LoggerFactory.getLogger(UplinkRetry.class);
    static final Duration PROBE_EVERY = Duration.ofSeconds(1);

    private final ScheduledExecutorService timer;
    private final HttpClient http;
    private final Runnable attempt;
    private final BooleanSupplier stopped;
    /** The current wait; whichever of its timer and its probe ends it first starts the attempt. */
    private final AtomicLong waits = new AtomicLong();

    UplinkRetry(ScheduledExecutorService timer, HttpClient http, Runnable attempt, BooleanSupplier stopped) {
        this.timer = timer;
        this.http = http;
        this.attempt = attempt;
        this.stopped = stopped;
    }

    /**
     * Waits {@code delay}, then attempts; probes {@code relay} meanwhile unless {@code refused} (a
     * refused credential waits the whole delay: the relay answers already, the operator has to act).
     */
    void after(Duration delay, boolean refused, URI relay) {
        long w = waits.incrementAndGet();
        timer.schedule(() -> end(w), delay.toMillis(), TimeUnit.MILLISECONDS);
        if (!refused && delay.compareTo(PROBE_EVERY) > 0) {
            timer.schedule(() -> probe(w, relay), PROBE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Ends wait {@code w} with an attempt, unless it already ended. */
    private void end(long w) {
        if (waits.compareAndSet(w, w + 1)) {
            attempt.run();
        }
    }

    /** Asks {@code target}'s {@code /healthz} during wait {@code w}: an answer from the relay ends the wait, silence asks again later. */
    private void probe(long w, URI target) {
        if (waits.get() != w || stopped.getAsBoolean()) {
            return;
        }
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(RelayUrls.healthUri(target)).timeout(PROBE_EVERY).GET().build();
        } catch (RuntimeException e) {
            return;
        }
        http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((r, error) -> {
            // 200, or 503 from a cluster node whose NATS is away (its own uplinks still work); a proxy's 502 is not the relay
            boolean answering = r != null && (r.statusCode() == 200 || (r.statusCode() == 503
                    && r.headers().firstValue("Content-Type").orElse("").startsWith("application/json")));
            if (answering) {
                LOG.info("relay {} answers again; the uplink is attempted now", target);
                end(w);
            } else if (waits.get() == w) {
                timer.schedule(() -> probe(w, target), PROBE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
            }
        });
    }
}
