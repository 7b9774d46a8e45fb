package dev.limpet.worker.rpc;

import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.CountDownLatch;

/**
 * One connection's outbound queue and its writer thread. Output is queued as raw chunks and encoded
 * on the writer, so the PTY reader (which calls {@link #output} under the session lock) never
 * waits on JSON or the socket. Bounded by bytes: a peer that stops reading is cut off (it
 * re-attaches with {@code since}) instead of growing the worker's memory or stalling the PTY.
 */
final class Outbound {
    /** Queued output beyond this many bytes drops the connection. */
    static final long MAX_QUEUED_BYTES = 8L << 20;

    private sealed interface Item {}

    private record Line(String text) implements Item {}

    private record Output(byte[] data, long endOffset) implements Item {}

    private record Flush(CountDownLatch done) implements Item {}

    private final LineChannel lines;
    private final ArrayDeque<Item> queue = new ArrayDeque<>();
    private long queuedBytes;
    private boolean closed;

    Outbound(LineChannel lines, String name) {
        this.lines = lines;
        Thread.ofPlatform().daemon().stackSize(256 * 1024).name("rpc-write-" + name).start(this::writeLoop);
    }

    synchronized void line(String text) {
        enqueue(new Line(text), text.length());
    }

    /** @return false when the queue is over its bound: the connection is being dropped */
    synchronized boolean output(byte[] data, long endOffset) {
        if (queuedBytes + data.length > MAX_QUEUED_BYTES) {
            closed = true;
            lines.close();
            notifyAll();
            return false;
        }
        enqueue(new Output(data, endOffset), data.length);
        return true;
    }

    /** Waits (a bounded time) until everything queued before this call is written, or the connection failed. */
    void flush() {
        CountDownLatch done = new CountDownLatch(1);
        synchronized (this) {
            if (closed) {
                return;
            }
            queue.add(new Flush(done));
            notifyAll();
        }
        try {
            done.await(2, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    synchronized void close() {
        closed = true;
        notifyAll();
    }

    private void enqueue(Item item, long bytes) {
        if (closed) {
            return;
        }
        queue.add(item);
        queuedBytes += bytes;
        notifyAll();
    }

    private void writeLoop() {
        try {
            while (true) {
                Item item;
                synchronized (this) {
                    while (queue.isEmpty() && !closed) {
                        wait();
                    }
                    if (queue.isEmpty()) {
                        return;
                    }
                    item = queue.poll();
                }
                switch (item) {
                    case Line l -> {
                        lines.writeLine(l.text());
                        release(l.text().length());
                    }
                    case Output o -> {
                        lines.writeLine(WorkerCodec.encode(WorkerCodec.event(WorkerRpc.EVENT_OUTPUT,
                                new WorkerPayloads.OutputEvent(o.endOffset(), o.data()))));
                        release(o.data().length);
                    }
                    case Flush f -> f.done().countDown();
                }
            }
        } catch (IOException | InterruptedException e) {
            synchronized (this) {
                closed = true;
                queue.forEach(i -> {
                    if (i instanceof Flush f) {
                        f.done().countDown();
                    }
                });
                queue.clear();
            }
            lines.close();
        }
    }

    private synchronized void release(long bytes) {
        queuedBytes -= bytes;
    }
}
