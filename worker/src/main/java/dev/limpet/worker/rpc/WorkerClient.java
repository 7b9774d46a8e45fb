package dev.limpet.worker.rpc;

import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerEnvelope;
import dev.limpet.protocol.worker.WorkerErrorCode;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.protocol.worker.WorkerRpcException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
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
 * matched by id, events handed to a handler in arrival order on the reader thread. A worker that
 * accepts and never answers costs a caller one deadline ({@code io_error}), never a hang.
 */
public final class WorkerClient implements AutoCloseable {
    private final LineChannel lines;
    private final Path socket;
    private final Map<Long, CompletableFuture<WorkerEnvelope.Response>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile Consumer<WorkerEnvelope.Event> events = e -> {};
    private volatile WorkerPayloads.HelloResult hello;

    private WorkerClient(SocketChannel channel, Path socket) {
        this.lines = new LineChannel(channel, WorkerRpc.MAX_LINE_BYTES);
        this.socket = socket;
    }

    /**
     * Connects (a Unix socket connect either succeeds at once or fails) and starts the reader.
     *
     * @throws IOException when nothing listens there (refused, missing file)
     */
    public static WorkerClient connect(Path socket) throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        WorkerClient c = new WorkerClient(ch, socket);
        Thread.ofVirtual().name("worker-rpc-" + socket.getFileName()).start(c::readLoop);
        return c;
    }

    public Path socket() {
        return socket;
    }

    /** Handler for pushed events; set it before the call that starts them (attach, watch). */
    public void onEvent(Consumer<WorkerEnvelope.Event> handler) {
        this.events = handler;
    }

    /** Completes when the connection ends, for whatever reason. */
    public CompletableFuture<Void> closed() {
        return closed;
    }

    /** The worker's answer to hello, once {@link #hello} succeeded. */
    public WorkerPayloads.HelloResult helloResult() {
        return hello;
    }

    /**
     * Handshake. Fails with {@code unsupported_version} when the worker's version lies outside this
     * build's window (whatever the worker itself accepted).
     */
    public WorkerPayloads.HelloResult hello(WorkerPayloads.Hello params, Duration timeout) {
        WorkerPayloads.HelloResult r = call(WorkerRpc.HELLO, params, WorkerPayloads.HelloResult.class, timeout);
        if (!WorkerRpc.compatible(r.rpcMajor(), r.rpcMinor())) {
            throw new WorkerRpcException(WorkerErrorCode.UNSUPPORTED_VERSION, "worker speaks rpc " + r.rpcMajor() + "."
                    + r.rpcMinor() + "; this daemon speaks " + WorkerRpc.RPC_MAJOR + "." + WorkerRpc.OLDEST_MINOR + "–"
                    + WorkerRpc.RPC_MAJOR + "." + WorkerRpc.RPC_MINOR);
        }
        hello = r;
        return r;
    }

    /** Whether the worker serves {@code method} (known after hello). */
    public boolean supports(String method) {
        WorkerPayloads.HelloResult h = hello;
        return h != null && WorkerRpc.methods(h.rpcMinor()).contains(method);
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
        long id = ids.incrementAndGet();
        CompletableFuture<WorkerEnvelope.Response> f = new CompletableFuture<>();
        pending.put(id, f);
        try {
            if (closed.isDone()) {
                throw new WorkerRpcException(WorkerErrorCode.IO_ERROR, "connection to " + socket.getFileName() + " is closed");
            }
            lines.writeLine(WorkerCodec.encode(WorkerCodec.request(id, method, params)));
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

    private void readLoop() {
        try {
            while (true) {
                WorkerEnvelope env = WorkerCodec.decode(lines.readLine());
                switch (env) {
                    case WorkerEnvelope.Response r -> {
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
        } catch (IOException | RuntimeException e) {
            failAll(e);
        }
    }

    private void failAll(Throwable cause) {
        lines.close();
        IOException gone = new IOException("connection to worker closed: " + cause.getMessage(), cause);
        pending.values().forEach(f -> f.completeExceptionally(gone));
        closed.complete(null);
    }

    @Override
    public void close() {
        lines.close();
    }
}
