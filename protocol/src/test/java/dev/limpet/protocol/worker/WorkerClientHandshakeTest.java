package dev.limpet.protocol.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.frame.FramedChannel;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's side of the hello against a scripted worker on a real Unix socket: the control
 * token never crosses the socket, a worker that cannot prove it knows the token gets nothing more,
 * and a worker older than the previous minor is refused with {@code unsupported_version}.
 */
class WorkerClientHandshakeTest {
    static final String TOKEN = "0123456789abcdef-the-session-control-token";
    static final String DAEMON = "d-00000000000000aa";
    static final Duration T = Duration.ofSeconds(5);

    @TempDir
    Path dir;
    ServerSocketChannel server;
    /** Everything the fake worker received: the hello line and the payload of each frame. */
    final List<String> received = new CopyOnWriteArrayList<>();
    volatile String daemonProof;

    /** A fake worker that answers a mutual hello with {@code proofKey}'s proof (null: a made-up proof). */
    Path fakeWorker(String proofKey) throws IOException {
        return fakeWorker(proofKey, WorkerRpc.RPC_MINOR);
    }

    /** As {@link #fakeWorker(String)}, for a worker that says it speaks rpc 1.{@code minor}. */
    Path fakeWorker(String proofKey, int minor) throws IOException {
        Path socket = dir.resolve("w.sock");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Thread.ofPlatform().daemon().start(() -> {
            try (FramedChannel ch = new FramedChannel(server.accept(), WorkerRpc.MAX_FRAME_BYTES, WorkerRpc.MAX_LINE_BYTES)) {
                String line = ch.readLine();
                received.add(line);
                var hello = (WorkerEnvelope.Request) WorkerCodec.decode(line);
                var p = WorkerCodec.read(hello.params(), WorkerPayloads.Hello.class);
                String ours = HandshakeKey.newChallenge();
                String proof = proofKey == null ? "f".repeat(64) : new HandshakeKey(proofKey).workerProof(DAEMON, p.challenge(), ours);
                ch.writeLine(WorkerCodec.encode(WorkerCodec.success(hello.id(), new WorkerPayloads.HelloResult("t", 1,
                        minor, DAEMON, "s").withProof(ours, proof))));
                while (true) {
                    Frame f = ch.readFrame();
                    String text = f.payloadText();
                    received.add(text);
                    var req = (WorkerEnvelope.Request) WorkerCodec.decode(text);
                    if (req.method().equals(WorkerRpc.AUTHENTICATE)) {
                        daemonProof = WorkerCodec.read(req.params(), WorkerPayloads.AuthenticateParams.class).proof();
                        boolean ok = proofKey != null && HandshakeKey.same(new HandshakeKey(proofKey).daemonProof(DAEMON, p.challenge(), ours),
                                daemonProof);
                        String answer = WorkerCodec.encode(ok ? WorkerCodec.success(req.id(), new WorkerPayloads.Empty())
                                : WorkerCodec.failure(req.id(), WorkerErrorCode.UNAUTHORIZED, "bad proof"));
                        ch.writeFrame(FrameKind.CONTROL, "", 0, ByteBuffer.wrap(answer.getBytes(StandardCharsets.UTF_8)));
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the client hung up
            }
        });
        return socket;
    }

    @AfterEach
    void close() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    static WorkerPayloads.Hello hello(int minor) {
        return new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR, minor, DAEMON, TOKEN, 42L, "2026-01-01T00:00:00Z", "n");
    }

    @Test
    void aWorkerThatCannotProveItKnowsTheTokenNeverReceivesTheTokenNorTheDaemonsProof() throws Exception {
        Path socket = fakeWorker(null);
        try (WorkerClient c = WorkerClient.connect(socket)) {
            assertThatThrownBy(() -> c.hello(hello(WorkerRpc.RPC_MINOR), T)).isInstanceOfSatisfying(WorkerRpcException.class, e -> {
                assertThat(e.code()).isEqualTo(WorkerErrorCode.UNAUTHORIZED);
                assertThat(e.getMessage()).contains("could not prove");
            });
            assertThat(c.closed()).succeedsWithin(T);
        }
        assertThat(received).hasSize(1).noneMatch(r -> r.contains(TOKEN));
        assertThat(daemonProof).isNull();
    }

    @Test
    void aWorkerThatKnowsTheTokenGetsTheDaemonsProofAndTheTokenStaysOffTheWire() throws Exception {
        Path socket = fakeWorker(TOKEN);
        try (WorkerClient c = WorkerClient.connect(socket)) {
            WorkerPayloads.HelloResult r = c.hello(hello(WorkerRpc.RPC_MINOR), T);
            assertThat(r.rpcMinor()).isEqualTo(WorkerRpc.RPC_MINOR);
            assertThat(c.minor()).isEqualTo(WorkerRpc.RPC_MINOR);
        }
        assertThat(received).hasSize(2).noneMatch(r -> r.contains(TOKEN));
        assertThat(received.getFirst()).contains("\"challenge\"").doesNotContain("control_token\":\"");
        assertThat(daemonProof).matches("[0-9a-f]{64}");
    }

    @Test
    void aWorkerThatProvesAnotherTokenIsRefused() throws Exception {
        Path socket = fakeWorker("some other token");
        try (WorkerClient c = WorkerClient.connect(socket)) {
            assertThatThrownBy(() -> c.hello(hello(WorkerRpc.RPC_MINOR), T)).isInstanceOfSatisfying(WorkerRpcException.class,
                    e -> assertThat(e.code()).isEqualTo(WorkerErrorCode.UNAUTHORIZED));
        }
        assertThat(daemonProof).isNull();
    }

    @Test
    void aWorkerOfThePreviousMinorIsServedAtItsMinor() throws Exception {
        Path socket = fakeWorker(TOKEN, WorkerRpc.OLDEST_MINOR);
        try (WorkerClient c = WorkerClient.connect(socket)) {
            c.hello(hello(WorkerRpc.RPC_MINOR), T);
            assertThat(c.minor()).isEqualTo(WorkerRpc.RPC_MINOR - 1);
        }
        assertThat(daemonProof).matches("[0-9a-f]{64}");
    }

    @Test
    void aWorkerOlderThanThePreviousMinorIsRefusedWithUnsupportedVersionAndGetsNothingMore() throws Exception {
        Path socket = fakeWorker(TOKEN, WorkerRpc.OLDEST_MINOR - 1);
        try (WorkerClient c = WorkerClient.connect(socket)) {
            assertThatThrownBy(() -> c.hello(hello(WorkerRpc.RPC_MINOR), T)).isInstanceOfSatisfying(WorkerRpcException.class, e -> {
                assertThat(e.code()).isEqualTo(WorkerErrorCode.UNSUPPORTED_VERSION);
                assertThat(e.getMessage()).contains("worker speaks rpc 1." + (WorkerRpc.OLDEST_MINOR - 1))
                        .contains("1." + WorkerRpc.OLDEST_MINOR + "–1." + WorkerRpc.RPC_MINOR);
            });
            assertThat(c.closed()).succeedsWithin(T);
        }
        assertThat(received).hasSize(1).noneMatch(r -> r.contains(TOKEN));
        assertThat(daemonProof).isNull();
    }

    @Test
    void theTwoProofsDifferAndDependOnBothChallenges() {
        HandshakeKey k = new HandshakeKey(TOKEN);
        String a = HandshakeKey.newChallenge();
        String b = HandshakeKey.newChallenge();
        assertThat(k.workerProof(DAEMON, a, b)).isNotEqualTo(k.daemonProof(DAEMON, a, b));
        assertThat(k.workerProof(DAEMON, a, b)).isNotEqualTo(k.workerProof(DAEMON, b, a));
        assertThat(k.workerProof(DAEMON, a, b)).isNotEqualTo(new HandshakeKey("other").workerProof(DAEMON, a, b));
        assertThat(HandshakeKey.isChallenge(a)).isTrue();
        assertThat(HandshakeKey.isChallenge("xyz")).isFalse();
        assertThat(k.toString()).doesNotContain(TOKEN);
    }
}
