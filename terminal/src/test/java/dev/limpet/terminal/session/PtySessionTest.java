package dev.limpet.terminal.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.PtyProcess;
import dev.limpet.terminal.pty.PtySpawnSpec;
import dev.limpet.testkit.GatedFlood;
import dev.limpet.testkit.TestPrograms;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A live session over a real PTY: credit holds the reader back, the screen model follows off the read path. */
class PtySessionTest {
    static final Duration T = Duration.ofSeconds(30);
    static final long READ_CHUNK = 64 * 1024;
    PtySession session;
    final CountDownLatch exited = new CountDownLatch(1);

    @AfterEach
    void close() {
        if (session != null) {
            session.close();
        }
    }

    PtySession start(List<String> argv, int ring) throws Exception {
        PtyProcess pty = PtyProcess.spawn(new PtySpawnSpec(argv, Map.of("PATH", System.getenv("PATH"), "TERM", "xterm-256color"),
                Path.of("/tmp"), 80, 24));
        session = new PtySession("s", pty, ring, new VtScreen(80, 24), status -> exited.countDown());
        return session;
    }

    /** Records what reaches a listener, in order, and whether the exit came after it. */
    static class Recorder implements PtySession.Listener {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        volatile long end = -1;
        volatile long endAtExit = -1;

        @Override
        public synchronized void onOutput(OutputChunk chunk) {
            bytes.writeBytes(chunk.bytes());
            end = chunk.endOffset();
        }

        @Override
        public void onExit(ExitStatus status) {
            endAtExit = end;
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        /** What the attach replayed: output the program wrote before the attach counts too. */
        synchronized void replayed(PtySession.Replay r) {
            bytes.writeBytes(r.data());
            end = r.endOffset();
        }
    }

    @Test
    void aGrantStopsTheReaderAtItsLimitSoTheProgramWaitsUntilMoreCreditComes() throws Exception {
        long bytes = 20_000_000;
        PtySession s = start(TestPrograms.command(GatedFlood.class, Long.toString(bytes)), 1 << 20);
        Recorder out = new Recorder();
        PtySession.Subscription sub = s.attach(-1, 200_000, out, out::replayed);
        await().atMost(T).until(() -> out.text().contains(GatedFlood.READY));
        s.write("g".getBytes(StandardCharsets.US_ASCII));
        await().atMost(T).until(s::readerPaused);
        Thread.sleep(300);
        assertThat(s.endOffset()).isBetween(200_000 - READ_CHUNK, 200_000 + READ_CHUNK);
        assertThat(s.running()).as("the program is blocked in write, not done").isTrue();
        sub.grant(5_000_000);
        await().atMost(T).until(() -> s.endOffset() >= 5_000_000 - READ_CHUNK && s.readerPaused());
        assertThat(s.endOffset()).isLessThanOrEqualTo(5_000_000 + READ_CHUNK);
        sub.grant(Long.MAX_VALUE);
        assertThat(exited.await(T.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(out.end).isEqualTo(GatedFlood.READY.length() + bytes);
    }

    @Test
    void theExitOfAProgramWhoseOutputIsHeldBackComesOnlyAfterAllItsOutput() throws Exception {
        long bytes = 30_000; // fits in the kernel's PTY buffer: the program can end while we hold it back
        PtySession s = start(TestPrograms.command(GatedFlood.class, Long.toString(bytes)), 1 << 20);
        Recorder out = new Recorder();
        PtySession.Subscription sub = s.attach(-1, GatedFlood.READY.length() + 1000, out, out::replayed);
        await().atMost(T).until(() -> out.text().contains(GatedFlood.READY));
        s.write("g".getBytes(StandardCharsets.US_ASCII));
        assertThat(exited.await(2500, TimeUnit.MILLISECONDS)).as("the exit waits for the held output").isFalse();
        sub.grant(Long.MAX_VALUE);
        assertThat(exited.await(T.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(out.endAtExit).as("every byte reached the listener before the exit").isEqualTo(GatedFlood.READY.length() + bytes);
    }

    @Test
    void aScreenWatcherHearsOutputAndEveryTitleItEndsOnButNotEverySpinnerFrame() throws Exception {
        PtySession s = start(TestPrograms.command(dev.limpet.testkit.TitleSpinner.class, "1500"), 1 << 20);
        List<String> titles = new CopyOnWriteArrayList<>();
        AtomicInteger outputs = new AtomicInteger();
        s.watchScreen(new ScreenWatcher() {
            @Override
            public void outputSeen() {
                outputs.incrementAndGet();
            }

            @Override
            public void titleChanged(String title) {
                titles.add(title);
            }
        });
        await().atMost(T).until(() -> s.title().equals("✳ ready"));
        s.write("go\r".getBytes(StandardCharsets.UTF_8));
        await().atMost(T).until(() -> titles.contains("✳ done"));
        assertThat(outputs.get()).isPositive();
        assertThat(titles.getLast()).isEqualTo("✳ done");
        assertThat(titles).anyMatch(t -> t.endsWith(" working") && t.codePointAt(0) >= 0x2801 && t.codePointAt(0) <= 0x28FF);
        // About 19 spinner frames in 1.5 s; the watcher hears at most one title per interval.
        long frames = titles.stream().filter(t -> t.endsWith(" working")).count();
        assertThat(frames).isLessThanOrEqualTo(1500 / ScreenFeeder.TITLE_INTERVAL_MILLIS + 2);
        assertThat(s.title()).isEqualTo("✳ done");
    }

    @Test
    void aListenerThatTakesLongerThanTheExitGraceOverAChunkStillGetsEveryByteBeforeTheExit() throws Exception {
        // The program prints, prints again while the listener is still busy with the first part, and ends.
        PtySession s = start(List.of("/bin/sh", "-c", "read x; printf 'first-part\\n'; sleep 0.3; printf 'second-part\\n'"), 1 << 20);
        Recorder out = new Recorder() {
            boolean stalled;

            @Override
            public void afterOutput() {
                // A listener writing to a slow client (its contract allows blocking here).
                if (!stalled && text().contains("first-part")) {
                    stalled = true;
                    try {
                        Thread.sleep(2500);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        s.attach(-1, Long.MAX_VALUE, out, out::replayed);
        s.write("go\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(exited.await(T.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(out.text()).as("what the program printed while the listener was busy").contains("second-part");
        assertThat(out.endAtExit).as("every byte reached the listener before the exit").isEqualTo(s.endOffset());
    }

    @Test
    void captureShowsTheOutputReadSoFarAlthoughTheModelIsFedOnItsOwnThread() throws Exception {
        PtySession s = start(List.of("/bin/sh", "-c", "stty -echo; read x; i=0; while [ $i -lt 300 ]; do echo line-$i; i=$((i+1)); done; sleep 30"), 1 << 20);
        Recorder out = new Recorder();
        s.attach(-1, out);
        s.write("go\r".getBytes(StandardCharsets.US_ASCII));
        await().atMost(T).until(() -> out.text().contains("line-299"));
        assertThat(s.captureText()).contains("line-299").doesNotContain("line-100\n");
    }

    @Test
    void aFreshAttachToAFullScreenProgramGetsASnapshotOfTheScreenAsOfItsReplayEnd() throws Exception {
        PtySession s = start(List.of("/bin/sh", "-c", "stty -echo; read x; printf '\\033[?1049h\\033[2J\\033[Hfull-screen-app'; sleep 30"), 1 << 20);
        Recorder out = new Recorder();
        s.attach(-1, out);
        s.write("go\r".getBytes(StandardCharsets.US_ASCII));
        await().atMost(T).until(() -> out.text().contains("full-screen-app"));
        PtySession.Replay r = s.attach(-1, new Recorder()).replay();
        assertThat(r.snapshot()).isNotNull();
        assertThat(r.replayFrom()).isEqualTo(s.endOffset());
        assertThat(new String(r.snapshot(), StandardCharsets.UTF_8)).contains("full-screen-app");
    }

    @Test
    void aFreshAttachGetsTheCurrentScreenNotTheRingEvenWhenTheRingHoldsTheWholeStream() throws Exception {
        PtySession s = start(List.of("/bin/sh", "-c", "stty -echo; read x; i=0; while [ $i -lt 3000 ]; do echo flood-$i; i=$((i+1)); done; sleep 30"),
                1 << 20);
        Recorder out = new Recorder();
        s.attach(-1, out);
        s.write("go\r".getBytes(StandardCharsets.US_ASCII));
        await().atMost(T).until(() -> out.text().contains("flood-2999"));
        PtySession.Replay r = s.attach(-1, new Recorder()).replay();
        assertThat(r.truncated()).as("the ring still holds the stream's first byte").isFalse();
        assertThat(r.data().length).as("bytes replayed from the ring").isZero();
        assertThat(r.replayFrom()).isEqualTo(s.endOffset());
        String screen = new String(r.snapshot(), StandardCharsets.UTF_8);
        assertThat(screen).contains("flood-2999").doesNotContain("flood-1000\r");
    }

    @Test
    void anAttachWithAnOffsetInTheRingGetsExactlyTheBytesAfterIt() throws Exception {
        PtySession s = start(List.of("/bin/sh", "-c", "stty -echo; read x; echo first; read y; echo second; sleep 30"), 1 << 20);
        Recorder out = new Recorder();
        s.attach(-1, out);
        s.write("go\r".getBytes(StandardCharsets.US_ASCII));
        await().atMost(T).until(() -> out.text().contains("first"));
        long since = s.endOffset();
        s.write("go\r".getBytes(StandardCharsets.US_ASCII));
        await().atMost(T).until(() -> out.text().contains("second"));
        PtySession.Replay r = s.attach(since, new Recorder()).replay();
        assertThat(r.snapshot()).isNull();
        assertThat(r.replayFrom()).isEqualTo(since);
        assertThat(new String(r.data(), StandardCharsets.UTF_8)).isEqualTo("second\r\n");
    }

    @Test
    void theScreenChangesSizeAtTheOffsetOfTheResize() throws Exception {
        PtySession s = start(List.of("/bin/sh", "-c", "read x; echo $(printf 'x%.0s' $(seq 1 70)); sleep 30"), 1 << 20);
        Recorder out = new Recorder();
        s.attach(-1, out);
        s.resize(40, 10);
        s.write("go\r".getBytes(StandardCharsets.US_ASCII));
        await().atMost(T).until(() -> out.text().contains("xxxxxxxxxx"));
        await().atMost(T).untilAsserted(() -> assertThat(s.captureText().lines().mapToInt(String::length).max().orElse(0))
                .isLessThanOrEqualTo(40));
        assertThat(s.captureText()).contains("x".repeat(30));
    }
}
