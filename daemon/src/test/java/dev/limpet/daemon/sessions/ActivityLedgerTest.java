package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.store.SessionStore;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.WarningCode;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ActivityLedgerTest {
    @TempDir
    Path dir;

    final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    final List<String> told = new CopyOnWriteArrayList<>();
    final SessionEvents events = new SessionEvents() {
        @Override
        public void sessionsChanged(List<SessionInfo> sessions) {}

        @Override
        public void sessionExited(String sessionId, Integer exitCode, String exitSignal) {}

        @Override
        public void warning(WarningCode code, String message) {}

        @Override
        public void sessionState(String sessionId, Activity activity, String waitingLine) {
            told.add(sessionId + " " + activity.wireName() + " " + waitingLine);
        }
    };

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void aWaitingLineWhoseFirstReadsFailIsReadAgainAndTold() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        WaitingLines slowThenAnswers = id -> {
            if (reads.incrementAndGet() < 3) {
                throw new IllegalStateException("the data plane did not answer in time");
            }
            return "Continue? [y/N]";
        };
        try (SessionStore store = SessionStore.open(dir.resolve("limpet.db"))) {
            ActivityLedger ledger = new ActivityLedger(store, Clock.systemUTC(), scheduler, () -> events, slowThenAnswers);
            ledger.track("s1", false, Activity.IDLE);

            ledger.report("s1", "waiting_input");

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!told.contains("s1 waiting_input Continue? [y/N]") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(told).containsSubsequence("s1 waiting_input null", "s1 waiting_input Continue? [y/N]");
            assertThat(ledger.waitingLine("s1")).isEqualTo("Continue? [y/N]");
            assertThat(reads).hasValue(3);
        }
    }
}
