package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.backend.RecoveredLaunch;
import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.store.LaunchIntent;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.terminal.pty.ExitStatus;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreRecoveryTest {
    static final Instant NOW = Instant.parse("2026-03-01T00:00:00Z");
    @TempDir
    Path tmp;
    SessionStore store;
    StoreRecovery recovery;

    @BeforeEach
    void open() {
        store = SessionStore.open(tmp.resolve("limpet.db"));
        recovery = new StoreRecovery(store, Clock.fixed(NOW, ZoneOffset.UTC));
    }

    @AfterEach
    void close() {
        store.close();
    }

    static StoredSession row(String id, String label, String state) {
        return new StoredSession(id, label, List.of("bash"), "/home/me", NOW.minusSeconds(60), state, 42L, null, null);
    }

    static RuntimeInfo live(String id, long pid) {
        return new RuntimeInfo(id, pid, true, null, 80, 24, 100);
    }

    static RecoveryReport report(List<RuntimeInfo> recovered, List<RecoveredLaunch> launches) {
        return new RecoveryReport(recovered, launches, Map.of(), List.of());
    }

    @Test
    void aLiveSessionKeepsItsLabelAndBecomesRunningWithTheWorkersPid() {
        store.insert(row("keep", "my label", SessionInfo.RECOVERABLE));
        assertThat(recovery.run(report(List.of(live("keep", 77)), List.of()))).isZero();
        StoredSession s = store.find("keep").orElseThrow();
        assertThat(s.label()).isEqualTo("my label");
        assertThat(s.state()).isEqualTo(SessionInfo.RUNNING);
        assertThat(s.pid()).isEqualTo(77L);
    }

    static StoredSession row(String id, String state, Activity activity) {
        return new StoredSession(id, id, List.of("claude"), "/home/me", NOW.minusSeconds(60), state, 42L, null, null, activity);
    }

    void markAgent(String id) {
        store.saveIntent(LaunchIntent.unknown(id).withConversation("claude", null));
    }

    @Test
    void waitingInputAndPendingApprovalArePreservedOnLiveWorkers() {
        store.insert(row("w", SessionInfo.RUNNING, Activity.WAITING_INPUT));
        store.insert(row("p", SessionInfo.RUNNING, Activity.PENDING_APPROVAL));
        store.insert(row("shell", SessionInfo.RUNNING, Activity.WAITING_INPUT));
        markAgent("w");
        markAgent("p");
        recovery.run(report(List.of(live("w", 1), live("p", 2), live("shell", 3)), List.of()));
        assertThat(store.find("w").orElseThrow()).extracting(StoredSession::state, StoredSession::activity)
                .containsExactly(SessionInfo.RUNNING, Activity.WAITING_INPUT);
        assertThat(store.find("p").orElseThrow().activity()).isEqualTo(Activity.PENDING_APPROVAL);
        assertThat(store.find("shell").orElseThrow().activity()).as("a hook-reported state of a shell too")
                .isEqualTo(Activity.WAITING_INPUT);
    }

    @Test
    void anyOtherActivityOfALiveAgentBecomesWorkingAndOfAnythingElseUnknown() {
        store.insert(row("agent-idle", SessionInfo.RUNNING, Activity.IDLE));
        store.insert(row("agent-unknown", SessionInfo.RUNNING, Activity.UNKNOWN));
        store.insert(row("shell-working", SessionInfo.RUNNING, Activity.WORKING));
        markAgent("agent-idle");
        markAgent("agent-unknown");
        recovery.run(report(List.of(live("agent-idle", 1), live("agent-unknown", 2), live("shell-working", 3)), List.of()));
        assertThat(store.find("agent-idle").orElseThrow().activity()).isEqualTo(Activity.WORKING);
        assertThat(store.find("agent-unknown").orElseThrow().activity()).isEqualTo(Activity.WORKING);
        assertThat(store.find("shell-working").orElseThrow().activity()).isEqualTo(Activity.UNKNOWN);
    }

    @Test
    void exitedLostAndClosedSessionsAreIdleWhateverTheyWereDoing() {
        store.insert(row("done", SessionInfo.RUNNING, Activity.WAITING_INPUT));
        store.insert(row("lost", SessionInfo.RUNNING, Activity.PENDING_APPROVAL));
        store.insert(row("closed", SessionInfo.RUNNING, Activity.WAITING_INPUT));
        store.saveIntent(LaunchIntent.unknown("closed").markedClosedOnPurpose());
        recovery.run(report(List.of(new RuntimeInfo("done", 5, false, ExitStatus.exited(0), 80, 24, 10)), List.of()));
        assertThat(store.find("done").orElseThrow().activity()).isEqualTo(Activity.IDLE);
        assertThat(store.find("lost").orElseThrow()).extracting(StoredSession::state, StoredSession::activity)
                .containsExactly(SessionInfo.RECOVERABLE, Activity.IDLE);
        assertThat(store.find("closed").orElseThrow()).extracting(StoredSession::state, StoredSession::activity)
                .containsExactly(SessionInfo.EXITED, Activity.IDLE);
    }

    @Test
    void aRecoveredLaunchThatHasExitedIsRecordedAsExitedWithItsStatus() {
        store.insert(row("done", "done", SessionInfo.RUNNING));
        recovery.run(report(List.of(new RuntimeInfo("done", 5, false, ExitStatus.killedBy(9), 80, 24, 10)), List.of()));
        StoredSession s = store.find("done").orElseThrow();
        assertThat(s.state()).isEqualTo(SessionInfo.EXITED);
        assertThat(s.exitSignal()).isEqualTo("KILL");
    }

    @Test
    void sessionsThatWereAliveButHaveNoWorkerBecomeRecoverableAndCountAsMissing() {
        store.insert(row("lost", "lost", SessionInfo.RUNNING));
        store.insert(row("lost2", "lost2", SessionInfo.STARTING));
        store.insert(row("old", "old", SessionInfo.EXITED));
        assertThat(recovery.run(report(List.of(), List.of()))).isEqualTo(2);
        assertThat(store.find("lost").orElseThrow().state()).isEqualTo(SessionInfo.RECOVERABLE);
        assertThat(store.find("lost2").orElseThrow().state()).isEqualTo(SessionInfo.RECOVERABLE);
        assertThat(store.find("old").orElseThrow().state()).isEqualTo(SessionInfo.EXITED);
    }

    @Test
    void anUnknownLiveWorkerGetsARowLabelledWithTheBaseNameOfItsCwd() {
        Instant started = NOW.minusSeconds(3600);
        recovery.run(report(List.of(live("stray", 9)),
                List.of(new RecoveredLaunch("stray", List.of("claude", "--continue"), "/home/me/src/limpet", started))));
        StoredSession s = store.find("stray").orElseThrow();
        assertThat(s.label()).isEqualTo("limpet");
        assertThat(s.command()).containsExactly("claude", "--continue");
        assertThat(s.cwd()).isEqualTo("/home/me/src/limpet");
        assertThat(s.createdAt()).isEqualTo(started);
        assertThat(s.state()).isEqualTo(SessionInfo.RUNNING);
        assertThat(s.activity()).isEqualTo(Activity.UNKNOWN);
    }

    @Test
    void anUnknownWorkerInTheRootDirectoryIsLabelledByItsCommand() {
        assertThat(StoreRecovery.labelFor("/", List.of("/usr/bin/htop"))).isEqualTo("htop");
        assertThat(StoreRecovery.labelFor("/srv/app", List.of("x"))).isEqualTo("app");
    }
}
