package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.TestPrograms;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tmux backend's restart story: {@code kill -9} of the daemon, a new daemon on the same data
 * root, and every session is still running in the private tmux server (same pid), every client
 * resumes exactly at its offset (no gap, nothing truncated). What a counter printed while no
 * daemon watched reaches clients as a repaint of tmux's screen, so the stream's own lines never
 * repeat and never go backwards.
 */
class TmuxRestartIT {
    static final int CYCLES = 10;
    static final int SESSIONS = 3;
    private static final Pattern LINE = Pattern.compile("line (\\d+)\r\n");

    @TempDir
    Path tmp;
    DaemonProcess daemon;
    WorkerWsClient client;

    @AfterEach
    void tearDown() throws Exception {
        if (client != null) {
            client.close();
        }
        if (daemon != null) {
            daemon.kill9();
        }
        Path socket = tmp.resolve("root").resolve("tmux").resolve("limpet.sock");
        if (Files.exists(socket)) {
            new ProcessBuilder("tmux", "-S", socket.toString(), "kill-server").start().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void tmuxSessionsSurviveKill9RestartsWithTheirPidsAndClientsResumeExactly() throws Exception {
        Path root = tmp.resolve("root");
        WorkerWsClient.Streams streams = new WorkerWsClient.Streams();
        daemon = DaemonProcess.start(root, "--backend", "tmux");
        client = new WorkerWsClient(daemon.port, daemon.token, streams);
        assertThat(client.hello("tmux-restart-it").backend()).isEqualTo("tmux");
        Map<String, Long> pids = new HashMap<>();
        for (int i = 0; i < SESSIONS; i++) {
            String id = client.spawn(TestPrograms.command(Counter.class, "0", "20"));
            ServerMessage.AttachResult a = client.attach(id, 0);
            pids.put(id, a.session().pid());
        }
        for (int cycle = 1; cycle <= CYCLES; cycle++) {
            WorkerRestartIT.awaitGrowth(streams, pids.keySet());
            daemon.kill9();
            client.close();
            daemon = DaemonProcess.start(root, "--backend", "tmux");
            client = new WorkerWsClient(daemon.port, daemon.token, streams);
            ServerMessage.InitialState state = client.hello("tmux-restart-it");
            assertThat(state.backend()).isEqualTo("tmux");
            assertThat(state.recovery().recovered()).as("cycle %d: recovered", cycle).isEqualTo(SESSIONS);
            for (String id : pids.keySet()) {
                SessionInfo s = state.sessions().stream().filter(x -> x.id().equals(id)).findFirst().orElseThrow();
                assertThat(s.state()).as("cycle %d: %s state", cycle, id).isEqualTo(SessionInfo.RUNNING);
                assertThat(s.pid()).as("cycle %d: %s pid", cycle, id).isEqualTo(pids.get(id));
                long since = streams.offset(id);
                ServerMessage.AttachResult a = client.attach(id, since);
                assertThat(a.truncated()).as("cycle %d: %s truncated", cycle, id).isFalse();
                assertThat(a.replayFrom()).as("cycle %d: %s replay starts at since", cycle, id).isEqualTo(since);
            }
        }
        WorkerRestartIT.awaitGrowth(streams, pids.keySet());
        assertThat(streams.error).isNull();
        for (String id : pids.keySet()) {
            assertLinesNeverRepeatNorGoBack(streams.text(id));
        }
    }

    static void assertLinesNeverRepeatNorGoBack(String text) {
        Matcher m = LINE.matcher(text);
        List<Integer> numbers = new ArrayList<>();
        while (m.find()) {
            numbers.add(Integer.parseInt(m.group(1)));
        }
        assertThat(numbers.size()).isGreaterThan(10);
        assertThat(numbers.getFirst()).isEqualTo(1);
        for (int i = 1; i < numbers.size(); i++) {
            assertThat(numbers.get(i)).as("line after line %d", numbers.get(i - 1)).isGreaterThan(numbers.get(i - 1));
        }
    }
}
