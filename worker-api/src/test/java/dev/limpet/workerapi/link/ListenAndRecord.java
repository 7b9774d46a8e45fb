package dev.limpet.workerapi.link;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * A fake worker that another user runs: listens on a Unix socket, prints "listening", and appends
 * every byte a peer sends to a file (what a daemon would have handed over). Needs only the JDK.
 *
 * <p>Usage: {@code ListenAndRecord SOCKET RECORD_FILE}
 */
public final class ListenAndRecord {
    private ListenAndRecord() {}

    public static void main(String[] args) throws Exception {
        Path socket = Path.of(args[0]);
        Path record = Path.of(args[1]);
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            System.out.println("listening");
            System.out.flush();
            while (true) {
                try (SocketChannel c = server.accept()) {
                    ByteBuffer b = ByteBuffer.allocate(65536);
                    while (c.read(b) > 0) {
                        b.flip();
                        Files.write(record, Arrays.copyOf(b.array(), b.limit()), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                        b.clear();
                    }
                }
            }
        }
    }
}
