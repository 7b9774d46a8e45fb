package dev.limpet.worker.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.frame.FrameException;
import dev.limpet.protocol.frame.FramedChannel;
import dev.limpet.protocol.worker.WorkerClient;
import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerErrorCode;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.protocol.worker.WorkerRpcException;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker's RPC against stand-in servers: handshake rules that need no real worker. */
class WorkerRpcRoundTripTest {
    @TempDir
    Path tmp;

    @Test
    void aSocketThatAcceptsAndNeverAnswersCostsOneDeadline() throws Exception {
        Path sock = tmp.resolve("mute.sock");
        try (RpcServer mute = RpcServer.bind(sock); WorkerClient c = WorkerClient.connect(sock)) {
            assertThatThrownBy(() -> c.hello(new WorkerPayloads.Hello(1, WorkerRpc.RPC_MINOR, "d", "t", null, null, null), Duration.ofMillis(200)))
                    .isInstanceOfSatisfying(WorkerRpcException.class, e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.IO_ERROR));
        }
    }

    @Test
    void aWorkerOutsideTheCompatibilityWindowIsRefusedAfterHello() throws Exception {
        Path sock = tmp.resolve("future.sock");
        try (RpcServer server = RpcServer.bind(sock)) {
            Thread.ofVirtual().start(() -> server.acceptLoop(ch -> Thread.ofVirtual().start(() -> {
                FramedChannel lines = new FramedChannel(ch, 1 << 20, 1 << 20);
                try {
                    var req = (dev.limpet.protocol.worker.WorkerEnvelope.Request) WorkerCodec.decode(lines.readLine());
                    lines.writeLine(WorkerCodec.encode(WorkerCodec.success(req.id(),
                            new WorkerPayloads.HelloResult("9.9", WorkerRpc.RPC_MAJOR + 1, 0, "d", "s"))));
                    lines.readLine();
                } catch (Exception ignored) {
                    // the client hangs up
                }
            })));
            try (WorkerClient c = WorkerClient.connect(sock)) {
                assertThatThrownBy(() -> c.hello(new WorkerPayloads.Hello(1, WorkerRpc.RPC_MINOR, "d", "t", null, null, null), Duration.ofSeconds(5)))
                        .isInstanceOfSatisfying(WorkerRpcException.class,
                                e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.UNSUPPORTED_VERSION));
                assertThat(c.helloResult()).isNull();
                assertThat(c.closed()).succeedsWithin(Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void aConnectionToNothingFailsAtOnce() {
        assertThatThrownBy(() -> WorkerClient.connect(tmp.resolve("absent.sock"))).isInstanceOf(IOException.class);
    }

    @Test
    void linesLongerThanTheLimitAreRefused() throws Exception {
        Path sock = tmp.resolve("long.sock");
        try (RpcServer server = RpcServer.bind(sock)) {
            List<Throwable> seen = new CopyOnWriteArrayList<>();
            Thread.ofVirtual().start(() -> server.acceptLoop(ch -> Thread.ofVirtual().start(() -> {
                try {
                    new FramedChannel(ch, 1 << 20, 16).readLine();
                } catch (Throwable e) {
                    seen.add(e);
                }
            })));
            try (var ch = SocketChannel.open(UnixDomainSocketAddress.of(sock))) {
                ch.write(ByteBuffer.wrap("x".repeat(100).getBytes(StandardCharsets.UTF_8)));
                await().atMost(Duration.ofSeconds(5)).until(() -> !seen.isEmpty());
            }
            assertThat(seen.getFirst()).isInstanceOf(FrameException.class);
        }
    }
}
