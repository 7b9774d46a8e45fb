package dev.limpet.workerapi.link;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * Who is at the other end of a Unix socket ({@code SO_PEERCRED}): the daemon talks to a worker
 * socket only when the process serving it runs as our own user. A socket directory another user
 * could reach (a shared temp dir) must never hand them a session's secrets.
 */
public final class PeerCredentials {
    private static volatile UserPrincipal self;
    private static volatile int selfUid = -1;

    private PeerCredentials() {}

    /** The peer is another user's process. */
    public static final class ForeignPeerException extends IOException {
        public ForeignPeerException(String message) {
            super(message);
        }
    }

    /**
     * @throws ForeignPeerException when the peer runs as another user, or its credentials cannot
     *     be read (nothing is trusted that cannot be checked)
     */
    public static void requireOwnUser(SocketChannel channel, Path socket) throws ForeignPeerException {
        UserPrincipal peer;
        try {
            UnixDomainPrincipal p = channel.getOption(ExtendedSocketOptions.SO_PEERCRED);
            peer = p.user();
        } catch (IOException | UnsupportedOperationException e) {
            throw new ForeignPeerException("cannot read the peer credentials of " + socket + " (" + e + "); refusing it");
        }
        UserPrincipal own = self();
        if (!peer.equals(own)) {
            throw new ForeignPeerException(socket + " is served by user " + peer.getName() + ", not by our own (uid " + selfUid + ")"
                    + "; refusing to talk to it (another user may have prepared that socket or its directory)");
        }
    }

    /** This process's user (from {@code /proc/self/status}: effective uid), as a principal that compares by uid. */
    static UserPrincipal self() throws ForeignPeerException {
        UserPrincipal s = self;
        if (s == null) {
            try {
                int uid = effectiveUid();
                s = FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName(Integer.toString(uid));
                selfUid = uid;
                self = s;
            } catch (IOException | RuntimeException e) {
                throw new ForeignPeerException("cannot tell which user this process runs as (" + e + "); refusing worker sockets");
            }
        }
        return s;
    }

    private static int effectiveUid() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                String[] f = line.substring(4).trim().split("\\s+");
                return Integer.parseInt(f[1]);
            }
        }
        throw new IOException("/proc/self/status has no Uid line");
    }
}
