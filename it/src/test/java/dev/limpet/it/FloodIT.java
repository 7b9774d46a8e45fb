package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.inprocess.WsTestClient;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ServerMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A flood never wedges a session on the default (worker) backend, even for a client that detaches and re-attaches through it. */
class FloodIT {
    @TempDir
    Path tmp;

    @Test
    void aClientThatDetachesAndReattachesDuringAFloodStillSeesWhatFollows() throws Exception {
        try (DaemonProcess d = DaemonProcess.start(tmp.resolve("root"))) {
            WsTestClient c = WsTestClient.connect(d.port, d.token);
            ServerMessage.InitialState state = c.helloAndWait("flood-it-key");
            assertThat(state.backend()).isEqualTo("worker");
            c.send(new ClientMessage.SpawnSession("sp", List.of("bash", "--norc", "--noprofile"), null, null, 80, 24, null));
            String id = c.await(ServerMessage.SpawnResult.class, r -> "sp".equals(r.reqId())).session().id();
            try {
                attach(c, id, -1);
                c.send(new ClientMessage.PtyInput(null, id, "timeout 3 yes flood-line; echo done-$((40+2))\r"));
                for (int i = 0; i < 10; i++) {
                    Thread.sleep(200);
                    long offset = c.lastOffset.getOrDefault(id, -1L);
                    c.send(new ClientMessage.DetachSession(null, id));
                    Thread.sleep(100);
                    c.lastOffset.remove(id);
                    attach(c, id, offset);
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> capture(d, id).contains("done-42"));
                // A flood may have desynced this client (it re-attaches from what it has, as clients must).
                c.send(new ClientMessage.DetachSession(null, id));
                attach(c, id, c.lastOffset.getOrDefault(id, -1L));
                c.send(new ClientMessage.PtyInput(null, id, "echo after-$((1+1))\r"));
                await().atMost(Duration.ofSeconds(30)).until(() -> c.outputOf(id).contains("after-2"));
                // A late-comer whose offset left the ring long ago gets the true screen as a snapshot.
                try (WsTestClient late = WsTestClient.connect(d.port, d.token)) {
                    late.helloAndWait("flood-it-late");
                    String req = "late";
                    late.send(new ClientMessage.AttachSession(req, id, 0L, null, null, false));
                    ServerMessage.AttachResult r = late.await(ServerMessage.AttachResult.class, x -> req.equals(x.reqId()));
                    assertThat(r.truncated()).isTrue();
                    assertThat(r.snapshot()).isTrue();
                    await().atMost(Duration.ofSeconds(30)).until(() -> late.snapshots.containsKey(id));
                    dev.limpet.vt.ScreenModel screen = dev.limpet.vt.ScreenModel.create(80, 24, 1000);
                    screen.feed(late.snapshots.get(id));
                    assertThat(screen.text()).contains("after-2");
                }
            } finally {
                LimpetCli.run(d.root, "rm", id);
                c.close();
            }
        }
    }

    /**
     * The stall recorded by the benchmark: a client attached from offset 0 before a gated flood
     * started saw its stream stop after about 1 MB with no {@code pty_desync}. Whatever happens to
     * the flood, the stream must reach the session's last byte, re-attaching after each desync as
     * clients must; it never stops silently.
     */
    @Test
    void aClientAttachedFromTheStartBeforeAGatedFloodNeverStopsSilently() throws Exception {
        long bytes = 10_000_000;
        try (DaemonProcess d = DaemonProcess.start(tmp.resolve("root"))) {
            WsTestClient c = WsTestClient.connect(d.port, d.token);
            c.helloAndWait("flood-stall-key");
            c.send(new ClientMessage.SpawnSession("sp", dev.limpet.testkit.TestPrograms.command(dev.limpet.testkit.GatedFlood.class,
                    Long.toString(bytes)), null, null, 80, 24, null));
            String id = c.await(ServerMessage.SpawnResult.class, r -> "sp".equals(r.reqId())).session().id();
            try {
                attach(c, id, 0);
                await().atMost(Duration.ofSeconds(60)).until(() -> c.outputOf(id).contains(dev.limpet.testkit.GatedFlood.READY));
                c.send(new ClientMessage.PtyInput(null, id, "g"));
                long end = dev.limpet.testkit.GatedFlood.READY.length() + bytes;
                long lastSeen = -1;
                long lastProgress = System.nanoTime();
                int desyncs = 0;
                while (c.lastOffset.getOrDefault(id, -1L) < end) {
                    Long desynced = c.desyncs.remove(id);
                    if (desynced != null) {
                        desyncs++;
                        attach(c, id, c.lastOffset.getOrDefault(id, -1L));
                    }
                    long now = c.lastOffset.getOrDefault(id, -1L);
                    if (now != lastSeen) {
                        lastSeen = now;
                        lastProgress = System.nanoTime();
                    }
                    assertThat(System.nanoTime() - lastProgress)
                            .as("the stream stopped at %d of %d with no pty_desync (%d desyncs before)", now, end, desyncs)
                            .isLessThan(Duration.ofSeconds(20).toNanos());
                    assertThat(c.protocolError).isNull();
                    Thread.sleep(50);
                }
                assertThat(c.lastOffset.get(id)).isEqualTo(end);
            } finally {
                LimpetCli.run(d.root, "rm", id);
                c.close();
            }
        }
    }

    /** Attaches as a real client does: a retryable refusal (the data plane was busy) is retried. */
    private static void attach(WsTestClient c, String id, long since) {
        for (int attempt = 1; ; attempt++) {
            String req = "a" + System.nanoTime();
            c.send(new ClientMessage.AttachSession(req, id, since, null, null, false));
            ServerMessage m = c.await(ServerMessage.class, x -> x instanceof ServerMessage.AttachResult r && req.equals(r.reqId())
                    || x instanceof ServerMessage.CommandError e && req.equals(e.reqId()), Duration.ofSeconds(90));
            if (m instanceof ServerMessage.AttachResult) {
                return;
            }
            ServerMessage.CommandError e = (ServerMessage.CommandError) m;
            assertThat(e.retryable()).as("attach refused: %s", e).isTrue();
            assertThat(attempt).as("attach refused %d times: %s", attempt, e).isLessThan(5);
        }
    }

    private static String capture(DaemonProcess d, String id) throws Exception {
        return LimpetCli.run(d.root, "capture", id).out();
    }
}
