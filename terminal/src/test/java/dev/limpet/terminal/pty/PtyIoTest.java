package dev.limpet.terminal.pty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.testkit.Counter;
import dev.limpet.testkit.EchoLines;
import dev.limpet.testkit.Flood;
import dev.limpet.testkit.TestPrograms;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Bytes in and out of real PTYs. */
class PtyIoTest {

    static PtyProcess spawn(List<String> argv) throws PtyException {
        return PtyProcess.spawn(PtySpawnSpec.of(argv, 80, 24));
    }

    @Test
    void childOutputIsReadFromTheMaster() throws Exception {
        try (PtyProcess pty = spawn(TestPrograms.command(Counter.class, "3", "10"))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.await("line 3\r\n");
            assertThat(out.text()).isEqualTo("line 1\r\nline 2\r\nline 3\r\n");
            assertThat(pty.waitFor()).isEqualTo(ExitStatus.exited(0));
        }
    }

    @Test
    void inputIsEchoedByTheLineDisciplineAndReachesTheChild() throws Exception {
        try (PtyProcess pty = spawn(TestPrograms.command(EchoLines.class))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.await("ready\r\n");
            out.type("hello pty\n");
            String text = out.await("got: hello pty\r\n");
            assertThat(text).contains("ready\r\nhello pty\r\ngot: hello pty\r\n");
        }
    }

    @Test
    void readReturnsMinusOneAfterTheChildExits() throws Exception {
        try (PtyProcess pty = spawn(List.of("/bin/sh", "-c", "echo bye"))) {
            byte[] buf = new byte[1024];
            StringBuilder seen = new StringBuilder();
            int n;
            while ((n = pty.read(buf, 0, buf.length)) > 0) {
                seen.append(new String(buf, 0, n));
            }
            assertThat(n).isEqualTo(-1);
            assertThat(seen.toString()).isEqualTo("bye\r\n");
            assertThat(pty.read(buf, 0, buf.length)).as("still at end").isEqualTo(-1);
            assertThat(pty.waitFor()).isEqualTo(ExitStatus.exited(0));
        }
    }

    @Test
    void everyByteOfAFastWriterArrivesBeforeEndOfOutput() throws Exception {
        int total = 3_000_000;
        try (PtyProcess pty = spawn(TestPrograms.command(Flood.class, Integer.toString(total)))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.awaitEof();
            byte[] got = out.bytes();
            assertThat(got.length).isEqualTo(total);
            byte[] pattern = Flood.DEFAULT_PATTERN.getBytes();
            for (int i = 0; i < got.length; i++) {
                if (got[i] != pattern[i % pattern.length]) {
                    throw new AssertionError("byte " + i + " differs");
                }
            }
            assertThat(pty.waitFor()).isEqualTo(ExitStatus.exited(0));
        }
    }

    @Test
    void writeDeliversInputLargerThanThePtyBuffer() throws Exception {
        int total = 300_000;
        try (PtyProcess pty = spawn(List.of("/bin/sh", "-c", "stty raw -echo; echo ready; head -c " + total + " >/dev/null; echo done"))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.await("ready");
            byte[] input = new byte[total];
            Arrays.fill(input, (byte) 'x');
            pty.write(input, 0, input.length);
            out.await("done");
            assertThat(pty.waitFor()).isEqualTo(ExitStatus.exited(0));
        }
    }

    @Test
    void closeWakesABlockedReaderWithEndOfOutput() throws Exception {
        PtyProcess pty = spawn(List.of("sleep", "30"));
        try {
            CompletableFuture<Integer> read = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                try {
                    read.complete(pty.read(new byte[16], 0, 16));
                } catch (IOException e) {
                    read.completeExceptionally(e);
                }
            });
            Thread.sleep(200);
            assertThat(read).isNotDone();
            pty.close();
            assertThat(read.get(5, TimeUnit.SECONDS)).isEqualTo(-1);
        } finally {
            pty.signalGroup(Signal.KILL);
            pty.waitFor();
        }
    }

    @Test
    void closeWakesAWriterBlockedOnAFullInputBuffer() throws Exception {
        // stty -icanon: no line limit, so unread input fills the PTY buffer and write blocks.
        PtyProcess pty = spawn(List.of("/bin/sh", "-c", "stty -icanon -echo; echo ready; exec sleep 30"));
        try {
            PtyTranscript out = PtyTranscript.of(pty);
            out.await("ready");
            CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
                try {
                    pty.write(new byte[1 << 20], 0, 1 << 20);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, r -> Thread.ofPlatform().start(r));
            Thread.sleep(300);
            assertThat(write).isNotDone();
            pty.close();
            assertThatThrownBy(() -> write.get(5, TimeUnit.SECONDS)).hasRootCauseInstanceOf(IOException.class)
                    .hasRootCauseMessage("pty is closed");
        } finally {
            pty.signalGroup(Signal.KILL);
            pty.waitFor();
        }
    }

    @Test
    void closeIsIdempotentAndLaterWritesAndResizesFail() throws Exception {
        PtyProcess pty = spawn(List.of("sleep", "30"));
        try {
            pty.close();
            pty.close();
            assertThat(pty.read(new byte[4], 0, 4)).isEqualTo(-1);
            assertThatThrownBy(() -> pty.write(new byte[] {'a'}, 0, 1)).isInstanceOf(IOException.class).hasMessage("pty is closed");
            assertThatThrownBy(() -> pty.resize(10, 10)).isInstanceOf(IOException.class).hasMessage("pty is closed");
        } finally {
            pty.signalGroup(Signal.KILL);
            pty.waitFor();
        }
    }

    @Test
    void zeroLengthReadAndWriteReturnImmediately() throws Exception {
        try (PtyProcess pty = spawn(List.of("sleep", "30"))) {
            assertThat(pty.read(new byte[4], 2, 0)).isZero();
            pty.write(new byte[4], 4, 0);
            assertThatThrownBy(() -> pty.read(new byte[4], 3, 2)).isInstanceOf(IndexOutOfBoundsException.class);
            pty.signalGroup(Signal.KILL);
            pty.waitFor();
        }
    }
}
