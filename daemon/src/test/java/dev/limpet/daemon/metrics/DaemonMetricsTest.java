package dev.limpet.daemon.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.protocol.SessionInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DaemonMetricsTest {
    private static SessionInfo session(String id, String state, long bytes) {
        return new SessionInfo(id, id, List.of("sh"), "/", state, 1L, null, null, "2026-11-26T00:00:00Z", 80, 24, bytes, 0);
    }

    @Test
    void beyondTheBusiestSessionsBytesAreAddedUpUnderOneSeriesSoLabelsStayBounded() {
        List<SessionInfo> many = new ArrayList<>();
        for (int i = 0; i < DaemonMetrics.MAX_SESSION_SERIES + 30; i++) {
            many.add(session(String.format("s%07d", i), SessionInfo.RUNNING, i));
        }
        Map<String, Long> bytes = DaemonMetrics.outputBytes(many);
        assertThat(bytes).hasSize(DaemonMetrics.MAX_SESSION_SERIES + 1);
        assertThat(bytes).containsKey(String.format("s%07d", DaemonMetrics.MAX_SESSION_SERIES + 29)).doesNotContainKey("s0000000");
        assertThat(bytes.get(DaemonMetrics.OTHER_SESSIONS)).isEqualTo(29L * 30 / 2);
    }

    @Test
    void everyStateIsReportedEvenAtZeroSoAScraperSeesItDropToNothing() {
        Map<String, Long> byState = DaemonMetrics.countByState(List.of(session("a", SessionInfo.RUNNING, 0), session("b", SessionInfo.RUNNING, 0),
                session("c", SessionInfo.RECOVERABLE, 0)));
        assertThat(byState).containsEntry(SessionInfo.RUNNING, 2L).containsEntry(SessionInfo.RECOVERABLE, 1L)
                .containsEntry(SessionInfo.EXITED, 0L).containsEntry(SessionInfo.STARTING, 0L);
    }

    @Test
    void eventsAreCountedByTheirLabelInTheExposition() {
        DaemonMetrics m = new DaemonMetrics();
        m.desync("slow_consumer");
        m.desync("slow_consumer");
        m.commandError("bad_request");
        String text = m.scrape();
        assertThat(text).contains("limpet_desyncs_total{reason=\"slow_consumer\"} 2.0").contains("limpet_command_errors_total{code=\"bad_request\"} 1.0");
    }
}
