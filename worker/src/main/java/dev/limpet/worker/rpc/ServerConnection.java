package dev.limpet.worker.rpc;

import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.frame.FramedChannel;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.terminal.session.PtySession;
import dev.limpet.worker.WorkerLog;
import dev.limpet.workerapi.rpc.WorkerCodec;
import dev.limpet.workerapi.rpc.WorkerEnvelope;
import dev.limpet.workerapi.rpc.WorkerErrorCode;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import dev.limpet.workerapi.rpc.WorkerRpc;
import dev.limpet.workerapi.rpc.WorkerRpcException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One daemon connection to the worker: hello first, as a line (anything else, or a failed hello,
 * closes it with a canonical code), then frames: requests in order as CONTROL frames, attachments
 * as streams of raw OUTPUT frames with credit, {@code replay} on a stream of its own, keys as
 * INPUT frames (from a 1.6 daemon). {@code watch} adds {@code state}/{@code exit} events.
 *
 * <p>Everything leaves through one byte-bounded queue, written by whichever thread queued (the PTY
 * reader for output, the request reader for answers) unless another is writing already: no writer
 * thread, no wake-up between the PTY and the socket. A slow daemon therefore holds the PTY reader
 * back (no byte is dropped on this link), and frames that pile up behind another writer do too
 * once they pass a high-water mark; a daemon that takes nothing for the stream's hold time is cut
 * off by a watchdog, so a stuck daemon never freezes a session.
 */
public final class ServerConnection implements ServedSession.Watcher {
    private static final AtomicInteger NUMBERS = new AtomicInteger();
    private static final Duration DEFAULT_HOLD = Duration.ofSeconds(10);

    /** Connections whose writes the watchdog looks at. */
    private static final Set<ServerConnection> OPEN = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean WATCHDOG = new AtomicBoolean();
    /** How long a key's acknowledgement waits for the echo to carry it (see {@link #input}). */
    static final long ACK_LINGER_MILLIS = 1;

    private final ServedSession served;
    private final PolledSocket socket;
    private final FramedChannel channel;
    /** The outgoing queue and its writes (see {@link ConnectionWriter} for which thread writes). */
    private final ConnectionWriter out;
    private final String name;
    private final Map<String, LiveStream> streams = new ConcurrentHashMap<>();
    private volatile Duration stallLimit = DEFAULT_HOLD;
    /** Hello, our proof and the daemon's; advanced by the request reader. */
    private final Handshake handshake;
    /** False until the hello is answered: that answer is the last line, frames follow it. */
    private volatile boolean framed;
    private volatile boolean watching;
    /** An acknowledgement waits for output to carry it; the request reader's own (see {@link #input}). */
    private boolean ackLingering;

    private ServerConnection(ServedSession served, PolledSocket socket) {
        this.socket = socket;
        this.served = served;
        this.name = Integer.toString(NUMBERS.incrementAndGet());
        this.channel = new FramedChannel(socket, WorkerRpc.MAX_FRAME_BYTES, WorkerRpc.MAX_LINE_BYTES);
        this.out = new ConnectionWriter(channel, name, () -> served.session().gatesChanged());
        this.handshake = new Handshake(served, name);
    }

    /** Serves {@code socket} on a new platform thread (its reader). */
    public static void start(ServedSession served, PolledSocket socket) {
        ServerConnection c = new ServerConnection(served, socket);
        OPEN.add(c);
        if (WATCHDOG.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().stackSize(256 * 1024).name("rpc-watchdog").start(ServerConnection::watch);
        }
        Thread.ofPlatform().daemon().stackSize(256 * 1024).name("rpc-read-" + c.name).start(c::serve);
    }

    /** Cuts off connections whose peer has taken nothing for their stall limit. */
    private static void watch() {
        while (true) {
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (ServerConnection c : OPEN) {
                if (!c.out.writing() && !c.out.isEmpty()) {
                    // What was queued where no write may happen (under the session lock); on a
                    // thread of its own, so this watchdog never blocks on a socket.
                    Thread.ofPlatform().daemon().stackSize(256 * 1024).name("rpc-flush-" + c.name).start(c.out::flush);
                }
                long started = c.out.writeStartedNanos();
                if (started != 0 && now - started > c.stallLimit.toNanos()) {
                    WorkerLog.warn("connection {}: the daemon read nothing for {} ms; cutting it off (it re-attaches with since)",
                            c.name, c.stallLimit.toMillis());
                    c.channel.close();
                }
            }
        }
    }

    private void serve() {
        try {
            while (true) {
                WorkerEnvelope env;
                try {
                    env = framed ? readFrame() : WorkerCodec.decode(channel.readLine());
                } catch (WorkerRpcException e) {
                    send(WorkerCodec.failure(0, e.code(), e.getMessage()));
                    flush();
                    continue;
                }
                if (env == null) {
                    continue;
                }
                if (!(env instanceof WorkerEnvelope.Request req)) {
                    send(WorkerCodec.failure(0, WorkerErrorCode.BAD_REQUEST, "only requests are accepted"));
                    flush();
                    continue;
                }
                boolean goOn = handle(req);
                flush();
                if (!goOn) {
                    break;
                }
            }
        } catch (EOFException e) {
            // the daemon went away (restart, detach): normal
        } catch (IOException | RuntimeException e) {
            WorkerLog.info("connection {} ended: {}", name, e.toString());
        } finally {
            end();
        }
    }

    /** The next control request of a framed connection; CREDIT frames are applied here (null then). */
    private WorkerEnvelope readFrame() throws IOException {
        Frame f = channel.readFrame();
        switch (f.kind()) {
            case CONTROL -> {
                return WorkerCodec.decode(f.payloadText());
            }
            case CREDIT -> {
                LiveStream s = streams.get(f.streamId());
                if (s == null) {
                    WorkerLog.info("connection {}: credit for unknown stream {} dropped", name, f.streamId());
                } else {
                    s.credit(f.offset());
                }
                return null;
            }
            case INPUT -> {
                if (!handshake.authenticated()) {
                    throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "input frames need an authenticated connection");
                }
                input(f);
                return null;
            }
            default -> throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "a daemon may not send " + f.kind() + " frames");
        }
    }

    /**
     * Sends the PTY master to the daemon's socket. Only to a connection of the minor that asks for
     * it, and only to an absolute socket path that a process of our own user listens on
     * ({@code DescriptorPassing} checks the listener); the send never waits.
     */
    private void lendMaster(WorkerPayloads.LendMasterParams p) throws IOException {
        if (!WorkerRpc.lendsMaster(handshake.minor())) {
            throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "lend_master needs rpc " + WorkerRpc.RPC_MAJOR + "."
                    + WorkerRpc.LEND_MASTER_MINOR);
        }
        Path socket;
        try {
            socket = p.socket() == null ? null : Path.of(p.socket());
        } catch (InvalidPathException e) {
            socket = null;
        }
        if (socket == null || !socket.isAbsolute()) {
            throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "lend_master needs the absolute path of a socket");
        }
        running().lendMasterTo(socket);
        WorkerLog.info("connection {}: lent the PTY master to the daemon", name);
    }

    /**
     * Writes an INPUT frame's new bytes to the PTY, then acknowledges how far the input stands. Keys
     * for a program that has ended are not acknowledged: the daemon reports them as not delivered.
     *
     * <p>A key's acknowledgement is not written at once: the program's echo follows within
     * microseconds, and written then, just ahead of the echo, it wakes the daemon's reader once for
     * both instead of twice while the program and the PTY need the cores (measured in
     * docs/benchmarks.md). What no output carried within {@link #ACK_LINGER_MILLIS} is written
     * before this reader waits on. Input that comes faster than that (a paste) is acknowledged as
     * it comes, so the daemon's window of unacknowledged input never waits on the linger.
     */
    private void input(Frame f) {
        try {
            long end = served.input().write(f.offset(), f.array(), f.payloadStart(), f.payloadLength(), served.session());
            out.requested(FrameKind.ACK, f.streamId(), end, ByteBuffer.allocate(0));
            if (ackLingering) {
                flush();
            } else {
                ackLingering = true;
                socket.lingerThen(ACK_LINGER_MILLIS, () -> {
                    ackLingering = false;
                    flush();
                });
            }
        } catch (IOException e) {
            WorkerLog.info("connection {}: input for an ended session not written: {}", name, e.getMessage());
        }
    }

    /** @return false to close the connection */
    private boolean handle(WorkerEnvelope.Request req) {
        try {
            if (!handshake.authenticated()) {
                answer(req, handshake.answer(req));
                if (WorkerRpc.HELLO.equals(req.method())) {
                    // The answer is the last line: the daemon reads frames after it, and so do we.
                    framed = true;
                }
                return true;
            }
            if (!WorkerRpc.METHODS.contains(req.method())) {
                throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "unknown method '" + req.method() + "'");
            }
            switch (req.method()) {
                case WorkerRpc.HELLO -> throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "hello was already done");
                case WorkerRpc.INFO -> answer(req, served.info());
                case WorkerRpc.HEALTH -> answer(req, new WorkerPayloads.HealthResult(true, ProcessHandle.current().pid()));
                case WorkerRpc.ATTACH -> attach(req, WorkerCodec.read(req.params(), WorkerPayloads.AttachParams.class));
                case WorkerRpc.REPLAY -> replay(req, WorkerCodec.read(req.params(), WorkerPayloads.ReplayParams.class));
                case WorkerRpc.DETACH -> {
                    detach(WorkerCodec.read(req.params(), WorkerPayloads.DetachParams.class).stream(), false);
                    answer(req, new WorkerPayloads.Empty());
                }
                case WorkerRpc.LEND_MASTER -> {
                    lendMaster(WorkerCodec.read(req.params(), WorkerPayloads.LendMasterParams.class));
                    answer(req, new WorkerPayloads.Empty());
                }
                case WorkerRpc.RESIZE -> {
                    WorkerPayloads.ResizeParams p = WorkerCodec.read(req.params(), WorkerPayloads.ResizeParams.class);
                    long at;
                    try {
                        at = running().resize(p.cols(), p.rows());
                    } catch (IllegalArgumentException e) {
                        throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, e.getMessage());
                    }
                    served.resized();
                    answer(req, new WorkerPayloads.ResizeResult(at));
                }
                case WorkerRpc.SIGNAL -> {
                    Signal s;
                    try {
                        s = Signal.parse(WorkerCodec.read(req.params(), WorkerPayloads.SignalParams.class).signal());
                    } catch (IllegalArgumentException e) {
                        throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, e.getMessage());
                    }
                    running().signal(s);
                    answer(req, new WorkerPayloads.Empty());
                }
                case WorkerRpc.CAPTURE -> {
                    WorkerPayloads.CaptureParams p = req.params() == null || req.params().isNull() ? null
                            : WorkerCodec.read(req.params(), WorkerPayloads.CaptureParams.class);
                    PtySession s = served.session();
                    answer(req, new WorkerPayloads.CaptureResult(s.captureText(), s.bracketedPaste(),
                            p != null && Boolean.TRUE.equals(p.cells()) ? s.captureScreen() : null));
                }
                case WorkerRpc.WATCH -> {
                    if (!watching) {
                        watching = true;
                        served.watch(this);
                    }
                    answer(req, served.info());
                }
                case WorkerRpc.REMOVE -> {
                    answer(req, new WorkerPayloads.Empty());
                    served.remove(out::drain);
                    return false;
                }
                default -> throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "unknown method '" + req.method() + "'");
            }
            return true;
        } catch (WorkerRpcException e) {
            send(WorkerCodec.failure(req.id(), e.code(), e.getMessage()));
            // A failed handshake ends the connection: nothing else is served to an unknown peer.
            return handshake.authenticated();
        } catch (IOException e) {
            send(WorkerCodec.failure(req.id(), WorkerErrorCode.IO_ERROR, e.getMessage()));
            return true;
        } catch (RuntimeException e) {
            WorkerLog.warn("connection {}: {} failed: {}", name, req.method(), e);
            send(WorkerCodec.failure(req.id(), WorkerErrorCode.INTERNAL_ERROR, e.toString()));
            return true;
        }
    }

    private PtySession running() {
        PtySession s = served.session();
        if (!s.running()) {
            throw new WorkerRpcException(WorkerErrorCode.SESSION_NOT_RUNNING, "session " + s.id() + " has exited");
        }
        return s;
    }

    // ---- streams --------------------------------------------------------------------------------

    private void attach(WorkerEnvelope.Request req, WorkerPayloads.AttachParams p) {
        String id = streamId(p.stream());
        detach(id, false);
        Duration hold = p.holdMs() == null ? DEFAULT_HOLD : Duration.ofMillis(Math.max(0, p.holdMs()));
        if (p.limit() != null) {
            served.creditHolds().release(id);
        }
        LiveStream stream = new LiveStream(id, hold, out, served, this::attachmentExited);
        long since = p.since() == null ? PtySession.NOW : p.since();
        PtySession session = served.session();
        stream.subscription = session.attach(since, Long.MAX_VALUE, stream, r -> {
            // Under the session lock: the answer and the replay are queued before any live chunk.
            send(WorkerCodec.success(req.id(), new WorkerPayloads.StreamAttachResult(served.info(), r.replayFrom(), r.endOffset(),
                    r.truncated())));
            out.replay(id, r);
        });
        if (p.limit() != null) {
            stream.credit(p.limit());
        }
        stallLimit = hold.isZero() ? DEFAULT_HOLD : hold;
        streams.put(id, stream);
        session.addGate(stream);
        served.attachedChanged(1);
        flush();
    }

    private void replay(WorkerEnvelope.Request req, WorkerPayloads.ReplayParams p) {
        String id = streamId(p.stream());
        served.session().replay(p.since(), r -> {
            send(WorkerCodec.success(req.id(), new WorkerPayloads.ReplayResult(r.replayFrom(), r.endOffset(), r.truncated(),
                    r.snapshot() != null)));
            if (r.snapshot() != null) {
                out.requested(FrameKind.SNAPSHOT, id, r.replayFrom(), ByteBuffer.wrap(r.snapshot()));
            }
            out.replay(id, r);
        });
        flush();
    }

    private static String streamId(String id) {
        if (id == null) {
            throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "stream is required");
        }
        try {
            Frame.encode(FrameKind.OUTPUT, id, 0, new byte[0]);
        } catch (IllegalArgumentException e) {
            throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "invalid stream id: " + e.getMessage());
        }
        return id;
    }

    /** Ends one stream ({@code null}: every stream of the connection). */
    private void detach(String stream, boolean keepCredit) {
        List<LiveStream> ending = stream == null ? List.copyOf(streams.values())
                : streams.get(stream) == null ? List.of() : List.of(streams.get(stream));
        for (LiveStream s : ending) {
            if (streams.remove(s.id, s)) {
                s.end(keepCredit);
                served.attachedChanged(-1);
            }
        }
    }

    // ---- output ---------------------------------------------------------------------------------

    private void answer(WorkerEnvelope.Request req, Object result) {
        send(WorkerCodec.success(req.id(), result));
    }

    /** Queues a control message; the caller flushes once it holds no session lock (never write under it). */
    private void send(WorkerEnvelope envelope) {
        out.control(envelope, framed);
    }

    /** An attachment saw the session exit (under the session lock): the exit event, unless a watch sends it. */
    private void attachmentExited(ExitStatus status) {
        if (!watching) {
            exit(exitEvent(status));
        }
    }

    private WorkerPayloads.ExitEvent exitEvent(ExitStatus status) {
        return new WorkerPayloads.ExitEvent(status.exitCode(), status.signal(), served.session().endOffset());
    }

    @Override
    public void state(WorkerPayloads.Info info) {
        send(WorkerCodec.event(WorkerRpc.EVENT_STATE, new WorkerPayloads.StateEvent(info)));
        flush();
    }

    /** Also called under the session lock (an attachment's exit): then the watchdog writes it. */
    @Override
    public void exit(WorkerPayloads.ExitEvent exit) {
        send(WorkerCodec.event(WorkerRpc.EVENT_EXIT, exit));
    }

    /** Writes what is queued, on this thread unless another is writing (see {@link ConnectionWriter#flush}). */
    private void flush() {
        out.flush();
    }

    private void end() {
        // Streams keep their credit for a while: a daemon that died resumes them losslessly.
        detach(null, true);
        if (watching) {
            served.unwatch(this);
        }
        if (handshake.authenticated()) {
            served.connectionClosed();
        }
        out.drain(); // the last answer (a refused hello, say) reaches the peer before the close
        out.close();
        channel.close();
        OPEN.remove(this);
    }
}
