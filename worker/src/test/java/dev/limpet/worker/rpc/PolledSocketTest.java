package dev.limpet.worker.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolledSocketTest {
    @TempDir
    Path dir;

    private PolledSocket socket;
    private SocketChannel peer;

    @BeforeEach
    void connect() throws IOException {
        Path path = dir.resolve("s");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            peer = SocketChannel.open(UnixDomainSocketAddress.of(path));
            socket = new PolledSocket(server.accept());
        }
        Files.deleteIfExists(path);
    }

    @AfterEach
    void close() throws IOException {
        socket.close();
        peer.close();
    }

    @Test
    void aWaitingReaderIsNotWokenWhenThePeerTakesWhatThisSideWrote() throws Exception {
        CompletableFuture<Long> switchesWhileWaiting = CompletableFuture.supplyAsync(() -> {
            try {
                long before = voluntarySwitches();
                int n = socket.read(ByteBuffer.allocate(16));
                assertThat(n).isEqualTo(1);
                return voluntarySwitches() - before;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, runnable -> Thread.ofPlatform().start(runnable));
        Thread.sleep(100);

        // Each frame the peer takes frees this side's send buffer: a blocking read would wake each time.
        ByteBuffer in = ByteBuffer.allocate(64);
        for (int i = 0; i < 200; i++) {
            socket.write(ByteBuffer.wrap(new byte[] {(byte) i}));
            in.clear();
            assertThat(peer.read(in)).isEqualTo(1);
        }
        peer.write(ByteBuffer.wrap(new byte[] {'x'}));

        assertThat(switchesWhileWaiting.get(10, TimeUnit.SECONDS)).isLessThan(20);
    }

    @Test
    void aReadThatFindsNothingRunsTheLingerTaskOnceThenWaitsForDataAsBefore() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        socket.lingerThen(1, runs::incrementAndGet);
        CompletableFuture<Integer> read = readOnAnotherThread();
        await().atMost(10, TimeUnit.SECONDS).until(() -> runs.get() == 1);
        Thread.sleep(100);
        assertThat(read).isNotDone();
        assertThat(runs.get()).isEqualTo(1);

        peer.write(ByteBuffer.wrap(new byte[] {'x'}));
        assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(1);
    }

    @Test
    void dataThatComesWhileTheReadLingersIsReadAfterTheTaskRan() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        socket.lingerThen(10_000, runs::incrementAndGet);
        CompletableFuture<Integer> read = readOnAnotherThread();
        Thread.sleep(100);
        peer.write(ByteBuffer.wrap(new byte[] {'x', 'y'}));

        // The linger ends when data comes, not when its time is up.
        assertThat(read.get(5, TimeUnit.SECONDS)).isEqualTo(2);
        assertThat(runs.get()).isEqualTo(1);
    }

    /** One read of up to 16 bytes, on a platform thread of its own (the reader's thread, as a connection has). */
    private CompletableFuture<Integer> readOnAnotherThread() {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return socket.read(ByteBuffer.allocate(16));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, runnable -> Thread.ofPlatform().start(runnable));
    }

    @Test
    void aWriteThatFillsTheSocketWaitsUntilThePeerTakesItAndLosesNothing() throws Exception {
        byte[] data = new byte[4 << 20];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                ByteBuffer[] parts = {ByteBuffer.wrap(data, 0, 1 << 20), ByteBuffer.wrap(data, 1 << 20, data.length - (1 << 20))};
                long left = data.length;
                while (left > 0) {
                    left -= socket.write(parts);
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, runnable -> Thread.ofPlatform().start(runnable));

        ByteBuffer got = ByteBuffer.allocate(data.length);
        while (got.hasRemaining()) {
            Thread.onSpinWait();
            peer.read(got);
        }
        writer.get(10, TimeUnit.SECONDS);
        assertThat(got.array()).isEqualTo(data);
    }

    @Test
    void closingEndsAWaitingRead() throws Exception {
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> {
            try {
                return socket.read(ByteBuffer.allocate(16));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, runnable -> Thread.ofPlatform().start(runnable));
        Thread.sleep(100);

        socket.close();

        assertThatThrownBy(() -> read.get(5, TimeUnit.SECONDS)).hasRootCauseInstanceOf(ClosedChannelException.class);
    }

    @Test
    void theEndOfThePeersOutputIsMinusOne() throws IOException {
        peer.shutdownOutput();

        assertThat(socket.read(ByteBuffer.allocate(16))).isEqualTo(-1);
    }

    /** This thread's voluntary context switches so far (Linux). */
    private static long voluntarySwitches() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalStateException("no voluntary_ctxt_switches in /proc/thread-self/status");
    }
}
