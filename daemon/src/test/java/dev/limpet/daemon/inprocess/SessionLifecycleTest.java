package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.EchoLines;
import dev.limpet.testkit.SizeReporter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sessions driven through the WebSocket protocol against real PTYs and tiny test programs. */
class SessionLifecycleTest {
    @TempDir
    Path root;
    DaemonHarness d;
    WsTestClient c;

    @BeforeEach
    void start() throws Exception {
        d = new DaemonHarness(root);
        c = d.client("lifecycle-key");
    }

    @AfterEach
    void stop() {
        c.close();
        d.close();
    }

    @Test
    void typedInputReachesTheProgramAndItsOutputComesBack() {
        SessionInfo s = d.spawn(c, DaemonHarness.program(EchoLines.class));
        d.attach(c, s.id(), -1L);
        c.send(new ClientMessage.PtyInput(null, s.id(), "hello limpet\r"));
        await().atMost(Duration.ofSeconds(15)).until(() -> c.outputOf(s.id()).contains("got: hello limpet"));
        assertThat(c.protocolError).isNull();
    }

    @Test
    void resizeReachesTheChildAsSigwinch() {
        SessionInfo s = d.spawn(c, DaemonHarness.program(SizeReporter.class), 80, 24);
        // From the stream's first byte: its first line may come before the attach, and a client
        // with nothing would get it drawn in a snapshot rather than as output.
        d.attach(c, s.id(), 0L);
        await().atMost(Duration.ofSeconds(15)).until(() -> c.outputOf(s.id()).contains("size 80x24"));
        c.send(new ClientMessage.TakeSize(null, s.id())); // the viewer a person uses: its resizes apply
        c.send(new ClientMessage.PtyResize(null, s.id(), 132, 43));
        await().atMost(Duration.ofSeconds(15)).until(() -> c.outputOf(s.id()).contains("size 132x43"));
    }

    @Test
    void exitCodeIsReportedToEveryClientAndInTheList() {
        // It ends when told, after its spawn_result was read: an exit reported first would be skipped by that wait.
        SessionInfo s = d.spawn(c, List.of("/bin/sh", "-c", "read line; exit 7"));
        c.send(new ClientMessage.PtyInput("go", s.id(), "\r"));
        ServerMessage.SessionExited exited = c.await(ServerMessage.SessionExited.class, e -> e.sessionId().equals(s.id()));
        assertThat(exited.exitCode()).isEqualTo(7);
        c.send(new ClientMessage.ListSessions("l"));
        SessionInfo listed = c.await(ServerMessage.SessionList.class, l -> "l".equals(l.reqId())).sessions().stream()
                .filter(x -> x.id().equals(s.id())).findFirst().orElseThrow();
        assertThat(listed.state()).isEqualTo("exited");
        assertThat(listed.exitCode()).isEqualTo(7);
    }

    @Test
    void signalGoesToTheProcessGroupAndTheDeathIsReported() {
        // Not a JVM: one that has installed its own SIGTERM handler exits with 143 instead of dying.
        SessionInfo s = d.spawn(c, List.of("sh", "-c", "sleep 1000 & exec sleep 1001"));
        c.send(new ClientMessage.KillSession("k", s.id(), "TERM"));
        // The exit may be reported before the kill's ack: both are awaited, in either order.
        ServerMessage.SessionExited exited = (ServerMessage.SessionExited) c.awaitEach(
                m -> m instanceof ServerMessage.Ack a && "k".equals(a.reqId()),
                m -> m instanceof ServerMessage.SessionExited e && e.sessionId().equals(s.id())).get(1);
        assertThat(exited.exitSignal()).isEqualTo("TERM");
        assertThat(exited.exitCode()).isNull();
    }

    @Test
    void closingASessionEndsAShellThatIgnoresSigterm() {
        SessionInfo s = d.spawn(c, List.of("bash", "--norc", "-i"));
        c.send(new ClientMessage.KillSession("close", s.id(), null));
        c.await(ServerMessage.SessionExited.class, e -> e.sessionId().equals(s.id()));
    }

    @Test
    void removeForgetsTheSession() {
        SessionInfo s = d.spawn(c, DaemonHarness.program(Counter.class, "0", "50"));
        c.send(new ClientMessage.RemoveSession("rm", s.id()));
        c.await(ServerMessage.Ack.class, a -> "rm".equals(a.reqId()));
        c.send(new ClientMessage.ListSessions("l"));
        assertThat(c.await(ServerMessage.SessionList.class, l -> "l".equals(l.reqId())).sessions()).isEmpty();
    }

    @Test
    void renameIsBroadcastAndStored() {
        SessionInfo s = d.spawn(c, DaemonHarness.program(Counter.class, "0", "200"));
        WsTestClient other = d.client("other-client-key");
        try {
            c.send(new ClientMessage.RenameSession("rn", s.id(), "build watcher"));
            c.await(ServerMessage.Ack.class, a -> "rn".equals(a.reqId()));
            other.await(ServerMessage.SessionsChanged.class,
                    m -> m.sessions().stream().anyMatch(x -> x.label().equals("build watcher")));
        } finally {
            other.close();
        }
    }
}
