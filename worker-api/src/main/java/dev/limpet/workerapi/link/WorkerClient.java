package dev.limpet.workerapi.link;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.frame.FramedChannel;
import dev.limpet.workerapi.rpc.HandshakeKey;
import dev.limpet.workerapi.rpc.WorkerCodec;
import dev.limpet.workerapi.rpc.WorkerEnvelope;
import dev.limpet.workerapi.rpc.WorkerErrorCode;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import dev.limpet.workerapi.rpc.WorkerRpc;
import dev.limpet.workerapi.rpc.WorkerRpcException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The daemon's side of one connection to a worker: requests with ids and deadlines, responses
 * matched by id, events and data frames handed to handlers in arrival order on the reader thread
 * (a platform thread: it is on the keystroke-echo path). The hello and its answer are JSON lines,
 * everything after them length-prefixed frames. A worker that accepts and never answers costs a
 * caller one deadline ({@code io_error}), never a hang.
 *
 * <p>Trust in both directions: a socket served by another user is refused at connect
 * ({@code SO_PEERCRED}, {@link PeerCredentials}) before a byte is sent; the hello is mutual
 * ({@link HandshakeKey}), so a worker that does not know the session's control token never
 * receives it nor anything else secret.
 */
public final class WorkerClient implements AutoCloseable {
    private final FramedChannel channel;
    private final Path socket;
    private final Map<Long, CompletableFuture<WorkerEnvelope.Response>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private final int ownMinor;
    private volatile Consumer<WorkerEnvelope.Event> events = e -> {};
    private volatile Consumer<Frame> frames = f -> {};
    private volatile WorkerPayloads.HelloResult hello;
    private volatile long helloId = -1;
    /** Set by the reader thread when the hello's answer arrives: everything after it is frames. */
    private volatile boolean framedReads;

    private WorkerClient(SocketChannel channel, Path socket, int ownMinor) {
        this.channel = new FramedChannel(channel, WorkerRpc.MAX_FRAME_BYTES, WorkerRpc.MAX_LINE_BYTES);
        this.socket = socket;
        this.ownMinor = ownMinor;
    }

    /**
     * Connects (a Unix socket connect either succeeds at once or fails), checks that the peer runs
     * as our own user, and starts the reader.
     *
     * @throws IOException when nothing listens there (refused, missing file)
     * @throws PeerCredentials.ForeignPeerException when the socket is served by another user
     */
    public static WorkerClient connect(Path socket) throws IOException {
        return connect(socket, WorkerRpc.RPC_MINOR);
    }

    /** As {@link #connect(Path)}, for a test that plays a daemon of the previous {@code minor}. */
    public static WorkerClient connect(Path socket, int minor) throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.connect(UnixDomainSocketAddress.of(socket));
            PeerCredentials.requireOwnUser(ch, socket);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        WorkerClient c = new WorkerClient(ch, socket, minor);
        Thread.ofPlatform().daemon().stackSize(256 * 1024).name("worker-link-" + socket.getFileName()).start(c::readLoop);
        return c;
    }

    public Path socket() {
        return socket;
    }

    /** Handler for pushed events; set it before the call that starts them (attach, watch). */
    public void onEvent(Consumer<WorkerEnvelope.Event> handler) {
        this.events = handler;
    }

    /** Handler for OUTPUT, SNAPSHOT and ACK frames; runs on the reader thread, so it must not block. */
    public void onFrame(Consumer<Frame> handler) {
        this.frames = handler;
    }

    /** Completes when the connection ends, for whatever reason. */
    public CompletableFuture<Void> closed() {
        return closed;
    }

    /** The worker's answer to hello, once {@link #hello} succeeded. */
    public WorkerPayloads.HelloResult helloResult() {
        return hello;
    }

    /** The minor both sides speak (after hello). */
    public int minor() {
        WorkerPayloads.HelloResult h = hello;
        return h == null ? -1 : Math.min(h.rpcMinor(), ownMinor);
    }

    /**
     * The mutual handshake. {@code params.rpcMinor()} is the newest minor the caller offers; the
     * control token in {@code params} never leaves this process: the worker must prove it knows it
     * before the daemon proves itself.
     *
     * @throws WorkerRpcException {@code unsupported_version} when the worker's version lies
     *     outside this build's window (the connection is then closed); {@code unauthorized} when
     *     either side's proof fails (the connection is then closed)
     */
    public WorkerPayloads.HelloResult hello(WorkerPayloads.Hello params, Duration timeout) {
        int minor = Math.min(params.rpcMinor(), ownMinor);
        HandshakeKey key = new HandshakeKey(params.controlToken());
        String ours = HandshakeKey.newChallenge();
        WorkerPayloads.Hello wire = new WorkerPayloads.Hello(params.rpcMajor(), minor, params.daemonInstanceId(), null,
                params.ownerPid(), params.ownerStartedAt(), params.ownerNonce(), ours);
        long id = ids.incrementAndGet();
        helloId = id;
        try {
            WorkerPayloads.HelloResult r = WorkerCodec.read(call(id, WorkerRpc.HELLO, wire, timeout), WorkerPayloads.HelloResult.class);
            requireCompatible(r);
            if (!HandshakeKey.isChallenge(r.challenge())
                    || !HandshakeKey.same(key.workerProof(params.daemonInstanceId(), ours, r.challenge()), r.proof())) {
                throw new WorkerRpcException(WorkerErrorCode.UNAUTHORIZED, "the worker at " + socket
                        + " could not prove it knows the session's control token; nothing secret was sent to it");
            }
            hello = r;
            call(WorkerRpc.AUTHENTICATE, new WorkerPayloads.AuthenticateParams(
                    key.daemonProof(params.daemonInstanceId(), ours, r.challenge())), timeout);
            return r;
        } catch (WorkerRpcException e) {
            hello = null;
            close();
            throw e;
        }
    }

    private void requireCompatible(WorkerPayloads.HelloResult r) {
        if (!WorkerRpc.compatible(r.rpcMajor(), r.rpcMinor())) {
            throw new WorkerRpcException(WorkerErrorCode.UNSUPPORTED_VERSION, "worker speaks rpc " + r.rpcMajor() + "."
                    + r.rpcMinor() + "; this daemon speaks " + WorkerRpc.window());
        }
    }

    public <T> T call(String method, Object params, Class<T> resultType, Duration timeout) {
        return WorkerCodec.read(call(method, params, timeout), resultType);
    }

    /**
     * Sends a request and waits for its response.
     *
     * @throws WorkerRpcException with the worker's code, or {@code io_error} when the connection
     *     fails or the deadline passes
     */
    public JsonNode call(String method, Object params, Duration timeout) {
        return call(ids.incrementAndGet(), method, params, timeout);
    }

    private JsonNode call(long id, String method, Object params, Duration timeout) {
        CompletableFuture<WorkerEnvelope.Response> f = new CompletableFuture<>();
        pending.put(id, f);
        try {
            if (closed.isDone()) {
                throw new WorkerRpcException(WorkerErrorCode.IO_ERROR, "connection to " + socket.getFileName() + " is closed");
            }
            String json = WorkerCodec.encode(WorkerCodec.request(id, method, params));
            if (hello == null) {
                channel.writeLine(json); // the hello, or a request before it: the worker reads lines until it answers a hello
            } else {
                channel.writeFrame(FrameKind.CONTROL, "", 0, ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)));
            }
            WorkerEnvelope.Response r = f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (!r.ok()) {
                WorkerEnvelope.Error e = r.error();
                throw new WorkerRpcException(WorkerErrorCode.fromWire(e == null ? null : e.code()),
                        method + ": " + (e == null ? "failed" : e.message()));
            }
            return r.result();
        } catch (IOException e) {
            close();
            throw new WorkerRpcException(WorkerErrorCode.IO_ERROR, method + ": " + e.getMessage(), e);
        } catch (TimeoutException e) {
            throw new WorkerRpcException(WorkerErrorCode.IO_ERROR, method + ": no answer within " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            throw new WorkerRpcException(WorkerErrorCode.IO_ERROR, method + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WorkerRpcException(WorkerErrorCode.IO_ERROR, method + ": interrupted");
        } finally {
            pending.remove(id);
        }
    }

    /**
     * Sends a request without waiting for its answer: the future completes with the result, or
     * with a {@link WorkerRpcException} (the worker's code, or {@code io_error} when the connection
     * ends first). Requests and frames leave in the order they were sent.
     */
    public CompletableFuture<JsonNode> callAsync(String method, Object params) {
        if (hello == null) {
            throw new IllegalStateException("hello first");
        }
        long id = ids.incrementAndGet();
        CompletableFuture<WorkerEnvelope.Response> f = new CompletableFuture<>();
        pending.put(id, f);
        CompletableFuture<JsonNode> result = f.handle((r, failure) -> {
            pending.remove(id);
            if (failure != null) {
                throw new WorkerRpcException(WorkerErrorCode.IO_ERROR, method + ": " + failure.getMessage(), failure);
            }
            if (!r.ok()) {
                WorkerEnvelope.Error e = r.error();
                throw new WorkerRpcException(WorkerErrorCode.fromWire(e == null ? null : e.code()),
                        method + ": " + (e == null ? "failed" : e.message()));
            }
            return r.result();
        });
        if (closed.isDone()) {
            f.completeExceptionally(new IOException("connection to " + socket.getFileName() + " is closed"));
            return result;
        }
        try {
            channel.writeFrame(FrameKind.CONTROL, "", 0, ByteBuffer.wrap(WorkerCodec.encode(WorkerCodec.request(id, method, params))
                    .getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            close();
            f.completeExceptionally(e);
        }
        return result;
    }

    /**
     * Sends {@code data[off, off + len)} as an INPUT frame of {@code stream} ending at input offset
     * {@code endOffset}. Nothing answers it;
     * the worker's ACK frames say how far the input was written. False when the connection is
     * broken (it is then closed).
     */
    public boolean input(String stream, long endOffset, byte[] data, int off, int len) {
        try {
            channel.writeFrame(FrameKind.INPUT, stream, endOffset, ByteBuffer.wrap(data, off, len));
            return true;
        } catch (IOException e) {
            close();
            return false;
        }
    }

    /**
     * Moves a stream's credit: the worker reads the PTY only up to {@code limit} for it
     * ({@code Long.MAX_VALUE}: no limit). Fire and forget; a broken connection closes the client.
     */
    public void credit(String stream, long limit) {
        try {
            channel.writeFrame(FrameKind.CREDIT, stream, limit, ByteBuffer.allocate(0));
        } catch (IOException e) {
            close();
        }
    }

    private void readLoop() {
        try {
            while (true) {
                if (framedReads) {
                    Frame f = channel.readFrame();
                    if (f.kind() == FrameKind.CONTROL) {
                        dispatch(WorkerCodec.decode(f.payloadText()));
                    } else if (f.kind() == FrameKind.OUTPUT || f.kind() == FrameKind.SNAPSHOT || f.kind() == FrameKind.ACK) {
                        frames.accept(f);
                    } else {
                        throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "a worker sent a " + f.kind() + " frame");
                    }
                } else {
                    dispatch(WorkerCodec.decode(channel.readLine()));
                }
            }
        } catch (IOException | RuntimeException e) {
            failAll(e);
        }
    }

    private void dispatch(WorkerEnvelope env) {
        switch (env) {
            case WorkerEnvelope.Response r -> {
                if (r.id() == helloId && r.ok()) {
                    // Switch before reading on: the worker writes frames right after this answer.
                    framedReads = true;
                }
                CompletableFuture<WorkerEnvelope.Response> f = pending.get(r.id());
                if (f != null) {
                    f.complete(r);
                }
            }
            case WorkerEnvelope.Event e -> events.accept(e);
            case WorkerEnvelope.Request r -> throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST,
                    "a worker sent a request (" + r.method() + ")");
        }
    }

    private void failAll(Throwable cause) {
        channel.close();
        IOException gone = new IOException("connection to worker closed: " + cause.getMessage(), cause);
        pending.values().forEach(f -> f.completeExceptionally(gone));
        closed.complete(null);
    }

    @Override
    public void close() {
        channel.close();
    }
}
