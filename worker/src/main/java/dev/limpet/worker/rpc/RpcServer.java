package dev.limpet.worker.rpc;

import dev.limpet.worker.WorkerLog;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.function.Consumer;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * Accepts connections on the worker's Unix socket. The socket lives in a 0700 directory; on top of
 * that every peer's user is checked with {@code SO_PEERCRED} and a peer of another user is closed
 * at once.
 */
public final class RpcServer implements AutoCloseable {
    private final ServerSocketChannel server;
    private final Path socket;
    private final UserPrincipal owner;

    private RpcServer(ServerSocketChannel server, Path socket, UserPrincipal owner) {
        this.server = server;
        this.socket = socket;
        this.owner = owner;
    }

    /** Binds {@code socket}, replacing a stale socket file left by a dead worker of the same session. */
    public static RpcServer bind(Path socket) throws IOException {
        Files.deleteIfExists(socket);
        ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.bind(UnixDomainSocketAddress.of(socket), 16);
            return new RpcServer(ch, socket, Files.getOwner(socket));
        } catch (IOException e) {
            ch.close();
            throw e;
        }
    }

    public Path socket() {
        return socket;
    }

    /**
     * Accepts until closed, handing each same-user connection to {@code handler} on the calling
     * thread, as a {@link PolledSocket}.
     */
    public void acceptLoop(Consumer<PolledSocket> handler) {
        while (server.isOpen()) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                WorkerLog.warn("accept on {} failed: {}", socket, e.toString());
                continue;
            }
            if (!sameUser(ch)) {
                close(ch);
                continue;
            }
            PolledSocket polled;
            try {
                polled = new PolledSocket(ch);
            } catch (IOException e) {
                WorkerLog.warn("a connection on {} could not be served: {}", socket, e.toString());
                close(ch);
                continue;
            }
            handler.accept(polled);
        }
    }

    private boolean sameUser(SocketChannel ch) {
        try {
            UnixDomainPrincipal peer = ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
            if (peer.user().equals(owner) || peer.user().getName().equals(owner.getName())) {
                return true;
            }
            WorkerLog.warn("refused a connection from user {} (this worker belongs to {})", peer.user().getName(), owner.getName());
            return false;
        } catch (IOException | UnsupportedOperationException e) {
            WorkerLog.warn("refused a connection whose peer credentials cannot be read: {}", e.toString());
            return false;
        }
    }

    private static void close(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // refused or unservable peer: nothing to release
        }
    }

    /** Stops accepting and removes the socket file. */
    @Override
    public void close() {
        // The file first: closing the channel ends the accept loop, and with it perhaps the JVM.
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            WorkerLog.warn("cannot remove socket {}: {}", socket, e.toString());
        }
        try {
            server.close();
        } catch (IOException e) {
            WorkerLog.info("closing {}: {}", socket, e.toString());
        }
    }
}
