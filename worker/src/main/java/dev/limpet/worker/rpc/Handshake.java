package dev.limpet.worker.rpc;

import dev.limpet.protocol.worker.HandshakeKey;
import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerEnvelope;
import dev.limpet.protocol.worker.WorkerErrorCode;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.protocol.worker.WorkerRpcException;
import dev.limpet.worker.WorkerLog;

/**
 * The handshake of one {@link ServerConnection}: hello first (a challenge answered with our proof),
 * then the daemon's {@code authenticate}; anything else before it is done is refused, and so is a
 * daemon whose minor lies outside this build's window. Advanced by the connection's request reader
 * only.
 */
final class Handshake {
    private final ServedSession served;
    private final String name;
    private boolean authenticated;
    /** A hello answered with our proof: only {@code authenticate} may follow. */
    private WorkerPayloads.Hello challenged;
    private String daemonChallenge;
    private String workerChallenge;
    private int minor;

    Handshake(ServedSession served, String name) {
        this.served = served;
        this.name = name;
    }

    /** True once the daemon proved itself: requests are served. */
    boolean authenticated() {
        return authenticated;
    }

    /** The rpc minor version both sides speak (0 before hello). */
    int minor() {
        return minor;
    }

    /**
     * The answer to {@code req}, a request before the handshake is done.
     *
     * @throws WorkerRpcException to refuse it (the connection then ends)
     */
    Object answer(WorkerEnvelope.Request req) {
        if (challenged != null) {
            if (!WorkerRpc.AUTHENTICATE.equals(req.method())) {
                challenged = null;
                throw new WorkerRpcException(WorkerErrorCode.UNAUTHORIZED, "authenticate first");
            }
            return authenticate(WorkerCodec.read(req.params(), WorkerPayloads.AuthenticateParams.class));
        }
        if (!WorkerRpc.HELLO.equals(req.method())) {
            throw new WorkerRpcException(WorkerErrorCode.UNAUTHORIZED, "hello first");
        }
        return hello(WorkerCodec.read(req.params(), WorkerPayloads.Hello.class));
    }

    private Object hello(WorkerPayloads.Hello h) {
        if (h.rpcMajor() != WorkerRpc.RPC_MAJOR) {
            throw new WorkerRpcException(WorkerErrorCode.UNSUPPORTED_VERSION, "this worker speaks rpc major "
                    + WorkerRpc.RPC_MAJOR + ", not " + h.rpcMajor());
        }
        if (!WorkerRpc.compatible(h.rpcMajor(), h.rpcMinor())) {
            // A daemon older than the window (a downgrade) would not understand what we send after the hello.
            WorkerLog.warn("connection {}: refused a daemon speaking rpc {}.{} (this worker speaks {})", name, h.rpcMajor(), h.rpcMinor(),
                    WorkerRpc.window());
            throw new WorkerRpcException(WorkerErrorCode.UNSUPPORTED_VERSION, "this worker speaks rpc " + WorkerRpc.window() + ", not "
                    + h.rpcMajor() + "." + h.rpcMinor());
        }
        minor = Math.min(h.rpcMinor(), served.rpcMinor());
        return challenge(h);
    }

    /**
     * Step one: prove we know the control token (HMAC over the daemon's challenge and ours) and
     * wait for the daemon's proof. Nothing is served and no lease recorded until then.
     */
    private Object challenge(WorkerPayloads.Hello h) {
        if (!HandshakeKey.isChallenge(h.challenge())) {
            throw new WorkerRpcException(WorkerErrorCode.UNAUTHORIZED, "hello needs a challenge of 64 hex digits");
        }
        served.requireDaemon(h.daemonInstanceId());
        challenged = h;
        daemonChallenge = h.challenge();
        workerChallenge = HandshakeKey.newChallenge();
        return served.helloResult().withProof(workerChallenge,
                served.handshakeKey().workerProof(served.daemonInstanceId(), daemonChallenge, workerChallenge));
    }

    /** Step two: the daemon's proof; a wrong one ends the connection. */
    private Object authenticate(WorkerPayloads.AuthenticateParams p) {
        WorkerPayloads.Hello h = challenged;
        challenged = null;
        String expected = served.handshakeKey().daemonProof(served.daemonInstanceId(), daemonChallenge, workerChallenge);
        if (p == null || !HandshakeKey.same(expected, p.proof())) {
            WorkerLog.warn("connection {}: refused a daemon whose proof does not match this session's control token", name);
            throw new WorkerRpcException(WorkerErrorCode.UNAUTHORIZED, "this worker belongs to another daemon instance or token");
        }
        opened(h);
        return new WorkerPayloads.Empty();
    }

    private void opened(WorkerPayloads.Hello h) {
        authenticated = true;
        served.connectionOpened();
        if (h.ownerPid() != null) {
            served.adoptOwner(h);
        }
    }
}
