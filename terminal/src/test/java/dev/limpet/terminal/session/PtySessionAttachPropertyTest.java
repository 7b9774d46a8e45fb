package dev.limpet.terminal.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.PtyProcess;
import dev.limpet.terminal.pty.PtySpawnSpec;
import dev.limpet.testkit.Seeds;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A property over a live {@link PtySession} on a real PTY: while {@code seq 1 N} writes, clients
 * attach at any moment with any {@code since}, some leave and come back from the last offset they
 * have. The PTY reader appends and fans out on its own thread, concurrently with the attaches: each
 * client's replay plus live chunks is the stream from where it asked (or, when that left the ring, a
 * snapshot and the stream from its end), without gap or duplicate, up to the end. It runs over
 * seeded random cases; a failing case names its seed.
 */
class PtySessionAttachPropertyTest {

    /** What {@code seq 1 n} puts in the stream (the line discipline turns LF into CR LF). */
    static byte[] seqOutput(int n) {
        StringBuilder s = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            s.append(i).append("\r\n");
        }
        return s.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** A client: attach after {@code delayMicros} with a since chosen by {@code sinceChoice}; leave and resume once if {@code resume}. */
    record Plan(int delayMicros, int sinceChoice, boolean resume) {}

    @Test
    void clientsAttachingAtAnyMomentWithAnySinceGetTheStreamWithoutGapOrDuplicate() {
        Seeds.check(25, PtySessionAttachPropertyTest::clientsGetTheStream);
    }

    static void clientsGetTheStream(SplittableRandom r) throws Exception {
        int lines = r.nextInt(1, 40_001);
        int ring = r.nextInt(64, 300_001);
        List<Plan> plans = new ArrayList<>();
        for (int i = r.nextInt(1, 5); i > 0; i--) {
            plans.add(new Plan(r.nextInt(30_001), r.nextInt(1001), r.nextBoolean()));
        }
        byte[] expected = seqOutput(lines);
        CountDownLatch exited = new CountDownLatch(1);
        PtyProcess pty = PtyProcess.spawn(new PtySpawnSpec(List.of("seq", "1", Integer.toString(lines)),
                Map.of("PATH", System.getenv("PATH")), Path.of("/tmp"), 80, 24));
        PtySession session = new PtySession("p", pty, ring, new VtScreen(80, 24), status -> exited.countDown());
        List<Client> clients = new ArrayList<>();
        try {
            for (Plan p : plans) {
                TimeUnit.MICROSECONDS.sleep(p.delayMicros());
                long end = session.endOffset();
                long since = switch (p.sinceChoice() % 4) {
                    case 0 -> -1;
                    case 1 -> 0;
                    case 2 -> PtySession.NOW;
                    default -> end == 0 ? 0 : p.sinceChoice() % (end + 1);
                };
                Client c = new Client(session, since);
                clients.add(c);
                if (p.resume()) {
                    TimeUnit.MICROSECONDS.sleep(p.delayMicros() / 2);
                    c.resume(session);
                }
            }
            assertThat(exited.await(30, TimeUnit.SECONDS)).as("seq ends and its output is read").isTrue();
            assertThat(session.endOffset()).isEqualTo(expected.length);
            for (Client c : clients) {
                c.assertContiguousUpTo(expected);
            }
        } finally {
            session.close();
        }
    }

    /** Replays and live chunks of one client, by attachment, checked after the program ended. */
    static final class Client implements PtySession.Listener {
        /** Each attachment: where its bytes start, and the bytes (replay then live). */
        final List<Long> starts = new ArrayList<>();
        final List<ByteArrayOutputStream> runs = new ArrayList<>();
        final List<Long> asked = new ArrayList<>();
        final List<Boolean> snapshot = new ArrayList<>();
        final List<Boolean> truncated = new ArrayList<>();
        PtySession.Subscription sub;

        Client(PtySession session, long since) {
            attach(session, since);
        }

        /**
         * Not synchronized: the session calls back under its lock, then takes this client's (as its
         * reader does for live output); holding this one first would invert the order.
         */
        private void attach(PtySession session, long since) {
            sub = session.attach(since, Long.MAX_VALUE, this, r -> {
                synchronized (this) {
                    asked.add(since);
                    ByteArrayOutputStream run = new ByteArrayOutputStream();
                    run.writeBytes(r.data());
                    starts.add(r.replayFrom());
                    runs.add(run);
                    snapshot.add(r.snapshot() != null);
                    truncated.add(r.truncated());
                }
            });
        }

        synchronized long end() {
            return starts.getLast() + runs.getLast().size();
        }

        /** Leaves and comes back with the offset it has. */
        void resume(PtySession session) {
            sub.close();
            attach(session, end());
        }

        /** The first broken delivery, kept for the check at the end (throwing here would kill the PTY reader). */
        String broken;

        @Override
        public synchronized void onOutput(OutputChunk chunk) {
            if (runs.isEmpty()) {
                broken = broken != null ? broken : "live output " + chunk + " before the replay";
                return;
            }
            long at = end();
            if (chunk.startOffset() != at && broken == null) {
                broken = "live chunk " + chunk + " after offset " + at + (chunk.startOffset() < at ? ": duplicate" : ": gap");
            }
            runs.getLast().writeBytes(chunk.bytes());
        }

        @Override
        public void onExit(ExitStatus status) {}

        synchronized void assertContiguousUpTo(byte[] expected) {
            assertThat(broken).as("every live chunk follows the one before").isNull();
            for (int i = 0; i < runs.size(); i++) {
                long since = asked.get(i);
                long start = starts.get(i);
                if (since != PtySession.NOW && !snapshot.get(i) && !truncated.get(i)) {
                    // Where it asked (from 0 when it had nothing), unless it was told those bytes left the ring.
                    assertThat(start).as("attachment %d with since=%d", i, since).isEqualTo(Math.max(0, since));
                }
                if (i > 0) {
                    assertThat(start).as("a resume starts where the client was, or later when the ring moved on")
                            .isGreaterThanOrEqualTo(starts.get(i - 1) + runs.get(i - 1).size());
                }
                byte[] got = runs.get(i).toByteArray();
                assertThat(start + got.length).as("attachment %d ends at the stream's end", i)
                        .isEqualTo(i == runs.size() - 1 ? expected.length : start + got.length);
                for (int k = 0; k < got.length; k++) {
                    if (got[k] != expected[(int) start + k]) {
                        throw new AssertionError("attachment " + i + ": wrong byte at offset " + (start + k));
                    }
                }
            }
        }
    }
}
