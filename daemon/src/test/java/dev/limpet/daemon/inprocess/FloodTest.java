package dev.limpet.daemon.inprocess;

import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.SessionInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A flood never wedges a session: after it, typing still works and its output arrives. */
class FloodTest {
    @TempDir
    Path root;

    /** The embedded backend here; the worker backend in it/FloodIT (workers need the built jar). */
    @Test
    void aClientThatDetachesAndReattachesDuringAFloodStillSeesWhatFollows() throws Exception {
        try (DaemonHarness d = new DaemonHarness(root, Duration.ZERO, 1 << 20, "embedded"); WsTestClient c = d.client("flood-key")) {
            SessionInfo s = d.spawn(c, List.of("bash", "--norc", "--noprofile"));
            d.attach(c, s.id(), -1L);
            c.send(new ClientMessage.PtyInput(null, s.id(), "timeout 3 yes flood-line; echo done-$((40+2))\r"));
            for (int i = 0; i < 10; i++) {
                Thread.sleep(200);
                long offset = c.lastOffset.getOrDefault(s.id(), -1L);
                c.send(new ClientMessage.DetachSession(null, s.id()));
                Thread.sleep(100);
                c.lastOffset.remove(s.id());
                d.attach(c, s.id(), offset);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> c.outputOf(s.id()).contains("done-42") || !c.snapshots.isEmpty()
                    && d.daemonCapture(s.id()).contains("done-42"));
            // A flood may have desynced this client (it re-attaches from what it has, as clients must).
            c.send(new ClientMessage.DetachSession(null, s.id()));
            d.attach(c, s.id(), c.lastOffset.getOrDefault(s.id(), -1L));
            c.send(new ClientMessage.PtyInput(null, s.id(), "echo after-$((1+1))\r"));
            await().atMost(Duration.ofSeconds(30)).until(() -> c.outputOf(s.id()).contains("after-2"));
            c.send(new ClientMessage.RemoveSession("rm", s.id()));
        }
    }
}
