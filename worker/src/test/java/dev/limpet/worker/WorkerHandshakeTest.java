package dev.limpet.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.frame.FramedChannel;
import dev.limpet.protocol.worker.HandshakeKey;
import dev.limpet.protocol.worker.WorkerClient;
import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerEnvelope;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.testkit.Counter;
import dev.limpet.testkit.TestPrograms;
import dev.limpet.worker.registry.RegistryEntry;
import dev.limpet.worker.registry.WorkerRegistry;
import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker's side of the mutual hello, spoken by hand to a real pty-worker process. */
class WorkerHandshakeTest {
    static final Duration T = WorkerHarness.TIMEOUT;
    @TempDir
    Path tmp;
    WorkerHarness harness;

    @BeforeEach
    void start() throws Exception {
        harness = new WorkerHarness(tmp.resolve("workers"));
        harness.start("hs", TestPrograms.command(Counter.class, "0", "1000"), null, 45);
        harness.connect("hs").close(); // listening
    }

    @AfterEach
    void stop() {
        harness.close();
    }

    /** A daemon speaking the wire by hand. */
    final class RawDaemon implements AutoCloseable {
        final FramedChannel ch;
        final String challenge = HandshakeKey.newChallenge();
        WorkerPayloads.HelloResult result;

        RawDaemon() throws IOException {
            SocketChannel s = SocketChannel.open(StandardProtocolFamily.UNIX);
            s.connect(UnixDomainSocketAddress.of(harness.registry.paths().socket("hs")));
            ch = new FramedChannel(s, WorkerRpc.MAX_FRAME_BYTES, WorkerRpc.MAX_LINE_BYTES);
        }

        WorkerPayloads.HelloResult mutualHello(Long ownerPid) throws IOException {
            var r = hello(new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR, WorkerHarness.DAEMON_ID, null, ownerPid,
                    "2026-01-01T00:00:00Z", "raw", challenge));
            result = WorkerCodec.read(r.result(), WorkerPayloads.HelloResult.class);
            return result;
        }

        WorkerEnvelope.Response hello(WorkerPayloads.Hello hello) throws IOException {
            ch.writeLine(WorkerCodec.encode(WorkerCodec.request(1, WorkerRpc.HELLO, hello)));
            return (WorkerEnvelope.Response) WorkerCodec.decode(ch.readLine());
        }

        WorkerEnvelope.Response send(long id, String method, Object params) throws IOException {
            byte[] json = WorkerCodec.encode(WorkerCodec.request(id, method, params)).getBytes(StandardCharsets.UTF_8);
            ch.writeFrame(FrameKind.CONTROL, "", 0, ByteBuffer.wrap(json));
            Frame f = ch.readFrame();
            return (WorkerEnvelope.Response) WorkerCodec.decode(f.payloadText());
        }

        @Override
        public void close() {
            ch.close();
        }
    }

    private RegistryEntry entry() {
        return ((WorkerRegistry.Parsed) harness.registry.read(harness.registry.paths().registry("hs"))).entry();
    }

    @Test
    void theWorkerProvesItKnowsTheTokenBeforeTheDaemonSendsAnythingSecret() throws Exception {
        try (RawDaemon d = new RawDaemon()) {
            WorkerPayloads.HelloResult r = d.mutualHello(null);
            assertThat(HandshakeKey.isChallenge(r.challenge())).isTrue();
            assertThat(r.proof()).isEqualTo(new HandshakeKey(WorkerHarness.TOKEN).workerProof(WorkerHarness.DAEMON_ID, d.challenge,
                    r.challenge()));
            var ok = d.send(2, WorkerRpc.AUTHENTICATE, new WorkerPayloads.AuthenticateParams(
                    new HandshakeKey(WorkerHarness.TOKEN).daemonProof(WorkerHarness.DAEMON_ID, d.challenge, r.challenge())));
            assertThat(ok.ok()).isTrue();
            assertThat(d.send(3, WorkerRpc.INFO, null).ok()).isTrue();
        }
    }

    @Test
    void aDaemonWhoseProofIsWrongIsServedNothingAndDisconnected() throws Exception {
        try (RawDaemon d = new RawDaemon()) {
            d.mutualHello(null);
            var refused = d.send(2, WorkerRpc.AUTHENTICATE, new WorkerPayloads.AuthenticateParams("0".repeat(64)));
            assertThat(refused.ok()).isFalse();
            assertThat(refused.error().code()).isEqualTo("unauthorized");
            assertThatThrownBy(d.ch::readFrame).isInstanceOf(EOFException.class);
        }
    }

    @Test
    void anyRequestButAuthenticateAfterAMutualHelloIsRefusedAndDisconnected() throws Exception {
        try (RawDaemon d = new RawDaemon()) {
            d.mutualHello(null);
            var refused = d.send(2, WorkerRpc.INFO, null);
            assertThat(refused.ok()).isFalse();
            assertThat(refused.error().code()).isEqualTo("unauthorized");
            assertThatThrownBy(d.ch::readFrame).isInstanceOf(EOFException.class);
        }
    }

    @Test
    void theOwnerLeaseOfAMutualHelloIsRecordedOnlyOnceTheDaemonHasProvenItself() throws Exception {
        long before = entry().ownerPid();
        try (RawDaemon d = new RawDaemon()) {
            d.mutualHello(4242L);
            d.send(2, WorkerRpc.AUTHENTICATE, new WorkerPayloads.AuthenticateParams("0".repeat(64)));
        }
        assertThat(entry().ownerPid()).isEqualTo(before);
        try (WorkerClient c = harness.connect("hs")) {
            c.hello(new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR, WorkerHarness.DAEMON_ID, WorkerHarness.TOKEN, 4242L,
                    "2026-01-01T00:00:00Z", "proven"), T);
        }
        assertThat(entry().ownerPid()).isEqualTo(4242L);
        assertThat(entry().ownerNonce()).isEqualTo("proven");
    }

    @Test
    void aDaemonOlderThanThePreviousMinorIsRefusedWithUnsupportedVersionGetsNoProofAndIsDisconnected() throws Exception {
        try (RawDaemon d = new RawDaemon()) {
            var r = d.hello(new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR, WorkerRpc.OLDEST_MINOR - 1, WorkerHarness.DAEMON_ID, null, null,
                    null, null, d.challenge));
            assertThat(r.ok()).isFalse();
            assertThat(r.error().code()).isEqualTo("unsupported_version");
            assertThat(r.error().message()).contains("1." + WorkerRpc.OLDEST_MINOR + "–1." + WorkerRpc.RPC_MINOR)
                    .contains("not 1." + (WorkerRpc.OLDEST_MINOR - 1));
            assertThatThrownBy(d.ch::readLine).isInstanceOf(EOFException.class);
        }
        await().atMost(T).untilAsserted(() -> assertThat(Files.readString(harness.registry.paths().log("hs")))
                .contains("refused a daemon speaking rpc 1." + (WorkerRpc.OLDEST_MINOR - 1)));
    }

    @Test
    void aHelloThatSendsTheTokenInsteadOfAChallengeIsRefused() throws Exception {
        try (RawDaemon d = new RawDaemon()) {
            var r = d.hello(new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR, WorkerRpc.RPC_MINOR, WorkerHarness.DAEMON_ID, WorkerHarness.TOKEN,
                    null, null, null));
            assertThat(r.ok()).isFalse();
            assertThat(r.error().code()).isEqualTo("unauthorized");
            assertThatThrownBy(d.ch::readLine).isInstanceOf(EOFException.class);
        }
    }

    @Test
    void aMutualHelloForAnotherDaemonInstanceGetsNoProof() throws Exception {
        try (RawDaemon d = new RawDaemon()) {
            d.ch.writeLine(WorkerCodec.encode(WorkerCodec.request(1, WorkerRpc.HELLO, new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR,
                    WorkerRpc.RPC_MINOR, "d-00000000000000ff", null, null, null, null, d.challenge))));
            var r = (WorkerEnvelope.Response) WorkerCodec.decode(d.ch.readLine());
            assertThat(r.ok()).isFalse();
            assertThat(r.error().code()).isEqualTo("unauthorized");
        }
    }
}
