package dev.limpet.worker.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.worker.WorkerRpcException;
import java.io.EOFException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LineChannelTest {
    @TempDir
    Path dir;

    private SocketChannel[] pair() throws Exception {
        var address = UnixDomainSocketAddress.of(dir.resolve("s.sock"));
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(address);
            SocketChannel client = SocketChannel.open(address);
            return new SocketChannel[] {client, server.accept()};
        }
    }

    private static void send(SocketChannel c, String s) throws Exception {
        ByteBuffer b = ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    @Test
    void linesSplitAnywhereAcrossWritesComeBackWhole() throws Exception {
        SocketChannel[] p = pair();
        try (LineChannel reader = new LineChannel(p[1], 1 << 20)) {
            String big = "x".repeat(200_000);
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    send(p[0], "first\nsec");
                    send(p[0], "ond\n" + big.substring(0, 70_000));
                    send(p[0], big.substring(70_000) + "\nh\u00e9\n\n");
                    p[0].close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(reader.readLine()).isEqualTo("first");
            assertThat(reader.readLine()).isEqualTo("second");
            assertThat(reader.readLine()).isEqualTo(big);
            assertThat(reader.readLine()).isEqualTo("h\u00e9");
            assertThat(reader.readLine()).isEmpty();
            assertThatThrownBy(reader::readLine).isInstanceOf(EOFException.class);
            writer.join();
        }
    }

    @Test
    void aLineOverTheLimitIsRefused() throws Exception {
        SocketChannel[] p = pair();
        try (LineChannel reader = new LineChannel(p[1], 1000)) {
            send(p[0], "y".repeat(5000) + "\n");
            assertThatThrownBy(reader::readLine).isInstanceOf(WorkerRpcException.class).hasMessageContaining("longer than 1000");
            p[0].close();
        }
    }
}
