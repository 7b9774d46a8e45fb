package dev.limpet.workerapi.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon talks to a worker socket only when our own user serves it (SO_PEERCRED). */
class PeerCredentialsTest {
    @TempDir
    Path dir;

    @Test
    void aSocketServedByOurOwnUserIsAccepted() throws Exception {
        Path socket = dir.resolve("own.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            try (WorkerClient c = WorkerClient.connect(socket)) {
                assertThat(c.socket()).isEqualTo(socket);
            }
        }
    }

    @Test
    void aFakeWorkerSocketServedByAnotherUserIsRefusedBeforeAByteIsSent() throws Exception {
        var other = OtherUser.find();
        assumeTrue(other.isPresent(), OtherUser.skipMessage());
        // A directory that user may bind in (as a shared temp dir is): outside the 0700 @TempDir.
        Path shared = Files.createTempDirectory(Path.of("/tmp"), "limpet-peer-");
        Process fake = null;
        try {
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
            Path socket = shared.resolve("w.sock");
            Path record = shared.resolve("received");
            Path classes = Path.of(ListenAndRecord.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            fake = other.get().start(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:-UsePerfData",
                    "-cp", classes.toString(), ListenAndRecord.class.getName(), socket.toString(), record.toString()));
            String first = new BufferedReader(new InputStreamReader(fake.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertThat(first).as("the fake worker (as uid %d) listens", other.get().uid).isEqualTo("listening");
            assertThat((Integer) Files.getAttribute(socket, "unix:uid")).isEqualTo(other.get().uid);

            assertThatThrownBy(() -> WorkerClient.connect(socket)).isInstanceOfSatisfying(PeerCredentials.ForeignPeerException.class,
                    e -> assertThat(e.getMessage()).contains(socket.toString()).contains("not by our own"));
            Thread.sleep(300);
            assertThat(record).as("nothing was sent to the fake worker").doesNotExist();
        } finally {
            if (fake != null) {
                fake.destroyForcibly().waitFor();
            }
            try (var all = Files.walk(shared)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
