package dev.limpet.worker.rpc;

import dev.limpet.protocol.frame.FrameException;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.frame.FramedChannel;
import dev.limpet.protocol.stream.OutboundQueue;
import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerEnvelope;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.terminal.session.PtySession;
import dev.limpet.worker.WorkerLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The outgoing side of one {@link ServerConnection}: everything it sends goes through one
 * byte-bounded queue, written by whichever thread queued (the PTY reader for output, the request
 * reader for answers) unless another is writing already: no writer thread, no wake-up between the
 * PTY and the socket. What piled up leaves in batches, consecutive output chunks of a stream as
 * one frame (one gathering write, no copy).
 *
 * <p>Offers never write: a caller that may hold the session lock only queues, and the connection
 * (or, failing that, its watchdog) calls {@link #flush} once no session lock is held.
 */
final class ConnectionWriter {
    /** Bytes written in one go at most (and the largest merged output frame). */
    static final long MAX_BATCH_BYTES = 1L << 20;

    /** What the writer writes. Control messages carry whether they go out as a line (the hello's answer) or a frame. */
    private sealed interface Out {}

    private record Control(WorkerEnvelope envelope, boolean framed) implements Out {}

    private record Data(FrameKind kind, String stream, long offset, ByteBuffer payload) implements Out {}

    private final FramedChannel channel;
    private final String name;
    private final OutboundQueue<Out> out;
    private final AtomicBoolean writing = new AtomicBoolean();
    /** When the write in progress began; 0 when none. */
    private volatile long writeStartedNanos;

    /** @param spaceFreed runs when a write took items off the queue (the PTY reader may go on) */
    ConnectionWriter(FramedChannel channel, String name, Runnable spaceFreed) {
        this.channel = channel;
        this.name = name;
        this.out = new OutboundQueue<>(spaceFreed);
    }

    // ---- queueing (never writes) ----------------------------------------------------------------

    /** Queues a control message, as a frame or as a line; whatever the queue holds. */
    void control(WorkerEnvelope envelope, boolean framed) {
        out.offerControl(new Control(envelope, framed), 256);
    }

    /** Queues a frame whatever the queue holds (the daemon asked for it: a snapshot, say). */
    void requested(FrameKind kind, String stream, long offset, ByteBuffer payload) {
        out.offerControl(new Data(kind, stream, offset, payload), payload.remaining());
    }

    /** The replay's bytes as OUTPUT frames; queued whatever the queue holds (the daemon asked for them). */
    void replay(String stream, PtySession.Replay r) {
        byte[] data = r.data();
        for (int off = 0; off < data.length; off += WorkerRpc.REPLAY_CHUNK) {
            int len = Math.min(WorkerRpc.REPLAY_CHUNK, data.length - off);
            out.offerControl(new Data(FrameKind.OUTPUT, stream, r.replayFrom() + off + len, ByteBuffer.wrap(data, off, len)), len);
        }
    }

    /** Queues a live chunk of {@code stream} as an OUTPUT frame (its reader is held back by {@link #queuedBytes}). */
    void output(String stream, OutputChunk chunk) {
        out.offer(new Data(FrameKind.OUTPUT, stream, chunk.endOffset(), chunk.view()), chunk.length(), stream, Long.MAX_VALUE);
    }

    long queuedBytes(String stream) {
        return out.queuedBytes(stream);
    }

    boolean isEmpty() {
        return out.isEmpty();
    }

    boolean isClosed() {
        return out.isClosed();
    }

    /** True while a thread is writing. */
    boolean writing() {
        return writing.get();
    }

    /** When the write in progress began ({@link System#nanoTime}); 0 when none. */
    long writeStartedNanos() {
        return writeStartedNanos;
    }

    /** Drops what is queued; later offers queue nothing. */
    void close() {
        out.close();
    }

    // ---- writing --------------------------------------------------------------------------------

    /**
     * Writes what is queued, on the calling thread, unless another thread is writing (it then
     * writes this caller's frames too: it looks again before it stops). What piled up leaves in
     * one go: consecutive output chunks of a stream as one frame (one gathering write, no copy),
     * so a flood crosses the link in large frames however small the PTY's reads are.
     */
    void flush() {
        List<Out> batch = new ArrayList<>();
        while (!out.isEmpty() && writing.compareAndSet(false, true)) {
            try {
                while (out.pollAll(batch, MAX_BATCH_BYTES)) {
                    writeStartedNanos = System.nanoTime();
                    write(batch);
                    batch.clear();
                }
            } catch (IOException | FrameException e) {
                WorkerLog.info("connection {}: write failed: {}", name, e.toString());
                out.close();
                channel.close();
                return;
            } finally {
                writeStartedNanos = 0;
                writing.set(false);
            }
        }
    }

    private void write(List<Out> batch) throws IOException {
        for (int i = 0; i < batch.size(); i++) {
            switch (batch.get(i)) {
                case Control c -> {
                    String json = WorkerCodec.encode(c.envelope());
                    if (c.framed()) {
                        channel.writeFrame(FrameKind.CONTROL, "", 0, ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)));
                    } else {
                        channel.writeLine(json);
                    }
                }
                case Data d -> i = writeRun(batch, i) - 1;
            }
        }
    }

    /**
     * Writes the data frame at {@code from} merged with the OUTPUT frames right after it that
     * continue it (same stream, contiguous offsets). Returns the index after the last one written.
     */
    private int writeRun(List<Out> batch, int from) throws IOException {
        Data first = (Data) batch.get(from);
        int to = from + 1;
        if (first.kind() == FrameKind.OUTPUT) {
            long end = first.offset();
            long size = first.payload().remaining();
            while (to < batch.size() && batch.get(to) instanceof Data d && d.kind() == FrameKind.OUTPUT
                    && d.stream().equals(first.stream()) && d.offset() - d.payload().remaining() == end
                    && size + d.payload().remaining() <= MAX_BATCH_BYTES) {
                end = d.offset();
                size += d.payload().remaining();
                to++;
            }
        }
        ByteBuffer[] payloads = new ByteBuffer[to - from];
        for (int i = from; i < to; i++) {
            payloads[i - from] = ((Data) batch.get(i)).payload();
        }
        channel.writeFrame(first.kind(), first.stream(), ((Data) batch.get(to - 1)).offset(), payloads);
        return to;
    }

    /** Writes what is queued and waits (a bounded time) for a writer on another thread to finish. */
    void drain() {
        flush();
        long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        while ((writing.get() || !out.isEmpty()) && !out.isClosed() && System.nanoTime() < deadline) {
            flush();
            Thread.onSpinWait();
            LockSupport.parkNanos(1_000_000);
        }
    }
}
