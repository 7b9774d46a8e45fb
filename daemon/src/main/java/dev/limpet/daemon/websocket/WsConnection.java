package dev.limpet.daemon.websocket;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.IteratingCallback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket on Jetty's socket once the handshake is answered. Its reads run on Jetty's
 * selector thread itself (a non-blocking connection): a client's message reaches the listener
 * with no hand-off to another thread, where Jetty's own WebSocket dispatches every read to a
 * pool thread (two wake-ups per key on a machine where each costs tens of microseconds). The
 * listener must therefore never wait on anything; the daemon's handlers queue work and return.
 *
 * <p>Sends may come from any thread: each frame is encoded (and compressed, past
 * {@link #COMPRESS_FROM} bytes, if negotiated) under the send lock, so frames leave in the order
 * their sends were called; what is queued when the socket can take more leaves in one write.
 * A send completes when its frame was written. Pings go out every {@link #PING_EVERY} (proxies
 * and NAT drop quiet sockets); a close is answered and the socket closed once both close frames
 * passed, or {@link #CLOSE_GRACE} after ours if the client never answers.
 *
 * <p>Thread contract: the listener is called on the reading thread, one call at a time, and
 * {@link Listener#onClosed} once, on whichever thread saw the socket end.
 */
public final class WsConnection extends AbstractConnection.NonBlocking implements Connection.UpgradeTo {
    private static final Logger LOG = LoggerFactory.getLogger(WsConnection.class);
    /** Smaller messages (a key's echo) go uncompressed: compressing them saves nothing and costs latency. */
    static final int COMPRESS_FROM = 128;
    static final Duration PING_EVERY = Duration.ofSeconds(20);
    static final Duration CLOSE_GRACE = Duration.ofSeconds(2);
    private static final int READ_BUFFER_BYTES = 16 * 1024;
    private static final long MAX_WRITE_BYTES = 256 * 1024;

    /** What the connection hands on; a binary message's buffer is valid only during the call. */
    public interface Listener {
        void onText(String text);

        void onBinary(ByteBuffer data);

        /** The socket is gone (closed by either side or failed); called once. */
        void onClosed();
    }

    private record Outgoing(int opcode, ByteBuffer header, ByteBuffer payload, CompletableFuture<Void> done) {}

    private final Scheduler scheduler;
    private final Duration idleTimeout;
    private final PerMessageDeflate deflate;
    private final WsMessageReader reader;
    private final Function<WsConnection, Listener> opened;
    private final ByteBuffer in = ByteBuffer.allocateDirect(READ_BUFFER_BYTES);
    private final ReaderSink readerSink = new ReaderSink();
    private final Flusher flusher = new Flusher();
    private final AtomicBoolean closedOnce = new AtomicBoolean();
    private volatile Listener listener;
    private volatile Scheduler.Task pingTask;
    /** Bytes the client sent right behind its handshake, read before the upgrade. */
    private ByteBuffer prefilled;
    /** Set once reading makes no sense any more (a protocol error): input is discarded until the socket closes. */
    private boolean discarding;

    private final Object sendLock = new Object();
    private final ArrayDeque<Outgoing> queued = new ArrayDeque<>();
    private final List<Outgoing> writing = new ArrayList<>();
    private boolean closeQueued;
    private boolean closeWritten;
    private boolean closeReceived;
    private boolean ended;

    /**
     * {@code deflate}: the compression agreed in the handshake, or null; {@code opened}: makes the
     * listener once the socket is open (not before: a client may vanish during the handshake).
     */
    public WsConnection(EndPoint endPoint, Executor executor, Scheduler scheduler, Duration idleTimeout, int maxMessageBytes,
            PerMessageDeflate deflate, Function<WsConnection, Listener> opened) {
        super(endPoint, executor);
        this.scheduler = scheduler;
        this.idleTimeout = idleTimeout;
        this.deflate = deflate;
        this.reader = new WsMessageReader(maxMessageBytes, deflate);
        this.opened = opened;
        BufferUtil.clear(in);
    }

    @Override
    public void onUpgradeTo(ByteBuffer buffer) {
        if (BufferUtil.hasContent(buffer)) {
            prefilled = ByteBuffer.allocate(buffer.remaining()).put(buffer).flip();
        }
    }

    @Override
    public void onOpen() {
        super.onOpen();
        getEndPoint().setIdleTimeout(idleTimeout.toMillis());
        listener = opened.apply(this);
        schedulePing();
        if (prefilled != null) {
            ByteBuffer early = prefilled;
            prefilled = null;
            consume(early);
        }
        fillInterested();
    }

    @Override
    public void onFillable() {
        try {
            while (true) {
                BufferUtil.clear(in);
                int n = getEndPoint().fill(in);
                if (n < 0) {
                    getEndPoint().close(); // the client is gone
                    return;
                }
                if (n == 0) {
                    fillInterested();
                    return;
                }
                consume(in);
            }
        } catch (IOException e) {
            getEndPoint().close(e);
        }
    }

    /** Feeds {@code bytes} to the reader; what follows a broken frame is dropped until the socket closes. */
    private void consume(ByteBuffer bytes) {
        if (discarding) {
            return;
        }
        try {
            reader.feed(bytes, readerSink);
        } catch (WsProtocolException e) {
            LOG.debug("{}: closing ({} {})", this, e.closeCode(), e.getMessage());
            discarding = true;
            close(e.closeCode(), e.getMessage());
        } catch (RuntimeException e) {
            if (closedOnce.get()) {
                return; // closed under the reader's feet (its inflater ended with it): nothing is lost
            }
            LOG.error("{}: a message's handler failed; closing the connection", this, e);
            discarding = true;
            close(WsClose.SERVER_ERROR, "internal error");
        }
    }

    private final class ReaderSink implements WsMessageReader.Sink {
        @Override
        public void text(String message) {
            listener.onText(message);
        }

        @Override
        public void binary(ByteBuffer message) {
            listener.onBinary(message);
        }

        @Override
        public void ping(byte[] payload) {
            // Only the latest ping is answered (RFC 6455 §5.5.3 allows it): a client that pings
            // without reading cannot grow this queue.
            synchronized (sendLock) {
                queued.removeIf(o -> o.opcode() == WsMessageReader.PONG);
            }
            sendFrame(WsMessageReader.PONG, ByteBuffer.wrap(payload), false);
        }

        @Override
        public void pong() {
            // the answer to our ping: the socket is alive, which its arrival already told the idle timer
        }

        @Override
        public void close(int code, String reason) {
            boolean answered;
            synchronized (sendLock) {
                closeReceived = true;
                answered = closeWritten;
            }
            if (answered) {
                getEndPoint().close();
            } else {
                WsConnection.this.close(code == WsClose.NO_CODE ? WsClose.NORMAL : code, "");
            }
        }
    }

    public CompletableFuture<Void> sendText(String text) {
        return sendFrame(WsMessageReader.TEXT, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), true);
    }

    /** Sends {@code data} (not read, nor to be changed, until the returned future completes). */
    public CompletableFuture<Void> sendBinary(ByteBuffer data) {
        return sendFrame(WsMessageReader.BINARY, data, true);
    }

    private CompletableFuture<Void> sendFrame(int opcode, ByteBuffer payload, boolean mayCompress) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (sendLock) {
            if (closeQueued || ended) {
                done.completeExceptionally(new ClosedChannelException());
                return done;
            }
            boolean compress = mayCompress && deflate != null && payload.remaining() >= COMPRESS_FROM;
            ByteBuffer body = compress ? deflate.compress(payload) : payload.slice();
            queued.add(new Outgoing(opcode, WsFrames.header(opcode, compress, body.remaining()), body, done));
        }
        flusher.iterate();
        return done;
    }

    /** Starts the close handshake: the close frame leaves behind what is queued, and nothing after it. */
    public void close(int code, String reason) {
        synchronized (sendLock) {
            if (closeQueued || ended) {
                return;
            }
            closeQueued = true;
            ByteBuffer payload = WsFrames.closePayload(code, reason);
            queued.add(new Outgoing(WsMessageReader.CLOSE, WsFrames.header(WsMessageReader.CLOSE, false, payload.remaining()), payload,
                    new CompletableFuture<>()));
        }
        flusher.iterate();
    }

    /** Drops the socket at once, without a close handshake. */
    public void disconnect() {
        getEndPoint().close();
    }

    private void closeFrameWritten() {
        boolean bothPassed;
        synchronized (sendLock) {
            closeWritten = true;
            bothPassed = closeReceived;
        }
        if (bothPassed) {
            getEndPoint().close();
        } else {
            scheduler.schedule(() -> getEndPoint().close(), CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void schedulePing() {
        pingTask = scheduler.schedule(() -> {
            if (!closedOnce.get()) {
                sendFrame(WsMessageReader.PING, ByteBuffer.allocate(0), false);
                schedulePing();
            }
        }, PING_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public boolean onIdleExpired(TimeoutException timeout) {
        close(WsClose.GOING_AWAY, "idle timeout");
        return false; // the close handshake, or its grace, ends the socket
    }

    @Override
    public void onClose(Throwable cause) {
        super.onClose(cause);
        if (!closedOnce.compareAndSet(false, true)) {
            return;
        }
        Scheduler.Task ping = pingTask;
        if (ping != null) {
            ping.cancel();
        }
        List<Outgoing> unsent = new ArrayList<>();
        synchronized (sendLock) {
            ended = true;
            unsent.addAll(writing);
            unsent.addAll(queued);
            queued.clear();
            if (deflate != null) {
                deflate.close();
            }
        }
        ClosedChannelException closed = new ClosedChannelException();
        unsent.forEach(o -> o.done().completeExceptionally(closed));
        Listener l = listener;
        if (l != null) {
            l.onClosed();
        }
    }

    /**
     * Writes what is queued, up to {@link #MAX_WRITE_BYTES} at a time, one write at a time
     * (Jetty's endpoint takes one). The JDK copies every heap buffer of a gathering write into
     * direct memory on each attempt, so a socket that takes less than offered would have a long
     * queue copied again on every turn.
     */
    private final class Flusher extends IteratingCallback {
        @Override
        protected Action process() {
            ByteBuffer[] buffers;
            synchronized (sendLock) {
                if (queued.isEmpty() || ended) {
                    return Action.IDLE;
                }
                long bytes = 0;
                while (!queued.isEmpty() && (writing.isEmpty() || bytes < MAX_WRITE_BYTES)) {
                    Outgoing o = queued.poll();
                    writing.add(o);
                    bytes += o.header().remaining() + o.payload().remaining();
                }
                buffers = new ByteBuffer[writing.size() * 2];
                for (int i = 0; i < writing.size(); i++) {
                    buffers[2 * i] = writing.get(i).header();
                    buffers[2 * i + 1] = writing.get(i).payload();
                }
            }
            getEndPoint().write(this, buffers);
            return Action.SCHEDULED;
        }

        @Override
        protected void onSuccess() {
            List<Outgoing> sent;
            synchronized (sendLock) {
                sent = List.copyOf(writing);
                writing.clear();
            }
            boolean closeSent = false;
            for (Outgoing o : sent) {
                o.done().complete(null);
                closeSent |= o.opcode() == WsMessageReader.CLOSE;
            }
            if (closeSent) {
                closeFrameWritten();
            }
        }

        @Override
        protected void onCompleteFailure(Throwable cause) {
            getEndPoint().close(cause);
        }

        @Override
        public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING; // completing a send only counts it off a queue
        }
    }
}
