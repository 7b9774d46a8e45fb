package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.SessionInfo;
import dev.limpet.testkit.Flood;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input from hooks: a flood of hook calls (1,000 in about a second) does not slow the session's
 * output. Measured in one run as a ratio: the session's output throughput to an attached client
 * while the burst runs, against the same without a burst (before and after). Every report changes
 * the state (working and waiting_input alternate), so each is a store write and a session_state to
 * the very client that reads the output: the costliest kind. Real PTY, real HTTP, real SQLite.
 */
class HookFloodTest {
    static final int REPORTS = 1000;
    static final int REPORTERS = 8;
    /** Quiet and burst windows alternate this many times; each burst is REPORTS / ROUNDS reports. */
    static final int ROUNDS = 4;
    static final long WINDOW_MILLIS = REPORTS / ROUNDS;
    /**
     * Generous, as timing on a shared 2-core machine must be: the HTTP requests (client and daemon
     * in this one JVM) take CPU the output needs too, so some slowing is the machine, not limpet.
     * Measured with other builds running (load average 5-8): 0.13-0.59, and reports that change
     * nothing (no store write, no event) cost about the same. What this catches is the output
     * stalling: with a store read on each report's path (SQLite pins the virtual threads that also
     * carry the WebSocket's writes) it measured 0.03.
     */
    static final double MIN_RATIO = 0.1;

    @TempDir
    Path root;

    @Test
    void aThousandHookReportsInASecondDoNotSlowTheSessionsOutput() throws Exception {
        try (DaemonHarness d = new DaemonHarness(root); WsTestClient c = d.client("hook-flood")) {
            c.keepOutput = false;
            SessionInfo s = d.spawn(c, DaemonHarness.program(Flood.class, Long.toString(1L << 40)));
            // Lossless: the flood is paced by what this client takes, so it is never desynced (a live
            // client that falls behind a full-speed flood is, by design, and then sees nothing more).
            c.attachLossless(s.id(), -1L, null);
            await().atMost(Duration.ofSeconds(30)).until(() -> c.lastOffset.getOrDefault(s.id(), 0L) > 1 << 20);
            Thread.sleep(500); // past the start-up

            // Quiet and burst windows interleaved, so the machine's own ups and downs (other builds on
            // its two cores) fall on both alike.
            AtomicInteger failed = new AtomicInteger();
            AtomicInteger reportNumber = new AtomicInteger();
            long quietBytes = 0;
            long quietNanos = 0;
            long burstBytes = 0;
            long burstNanos = 0;
            List<String> windows = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                long[] q = window(c, s.id(), () -> sleep(WINDOW_MILLIS));
                long[] b = window(c, s.id(), () -> burst(d, s.id(), REPORTS / ROUNDS, reportNumber, failed));
                quietBytes += q[0];
                quietNanos += q[1];
                burstBytes += b[0];
                burstNanos += b[1];
                windows.add(String.format("%.0f/%.0f", q[0] * 1e3 / q[1], b[0] * 1e3 / b[1]));
            }
            double quiet = quietBytes * 1e9 / quietNanos;
            double during = burstBytes * 1e9 / burstNanos;
            double ratio = during / quiet;
            String report = String.format("output %.1f MB/s quiet, %.1f MB/s while %d reports arrived in %d ms (%d rounds, MB/s quiet/burst: %s):"
                    + " ratio %.2f, desyncs %s", quiet / 1e6, during / 1e6, REPORTS, burstNanos / 1_000_000, ROUNDS,
                    String.join(" ", windows), ratio, c.desyncs);
            System.out.println("HookFloodTest: " + report);
            assertThat(failed.get()).as("reports refused or failed").isZero();
            assertThat(c.protocolError).as("the stream stayed whole").isNull();
            assertThat(ratio).as(report).isGreaterThanOrEqualTo(MIN_RATIO);
        }
    }

    /** {bytes delivered to the client, nanoseconds} while {@code during} runs. */
    static long[] window(WsTestClient c, String id, Runnable during) {
        long from = c.lastOffset.get(id);
        long t0 = System.nanoTime();
        during.run();
        long nanos = System.nanoTime() - t0;
        return new long[] {c.lastOffset.get(id) - from, nanos};
    }

    /** {@code count} reports from a few concurrent reporters, alternating states, paced at one a millisecond. */
    static void burst(DaemonHarness d, String id, int count, AtomicInteger numbers, AtomicInteger failed) {
        HttpClient http = HttpClient.newHttpClient();
        URI uri = URI.create("http://127.0.0.1:" + d.port() + "/api/sessions/" + id + "/activity");
        AtomicInteger next = new AtomicInteger();
        long t0 = System.nanoTime();
        List<Thread> reporters = new ArrayList<>();
        for (int r = 0; r < REPORTERS; r++) {
            reporters.add(Thread.ofVirtual().start(() -> {
                for (int n; (n = next.getAndIncrement()) < count; ) {
                    // Paced: report n leaves no earlier than n ms after the start (1,000 in about a second).
                    long due = t0 + n * 1_000_000L;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    String state = numbers.getAndIncrement() % 2 == 0 ? "working" : "waiting_input";
                    try {
                        HttpResponse<String> res = http.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + d.token())
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString("{\"activity\":\"" + state + "\"}")).build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (res.statusCode() != 200) {
                            failed.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failed.incrementAndGet();
                    }
                }
            }));
        }
        for (Thread t : reporters) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
