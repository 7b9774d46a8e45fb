package dev.limpet.daemon.gateway;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One connection's bounded queue of outgoing frames, drained by a single writer. Output frames are
 * refused once the queued bytes pass the limit (the caller then desyncs that session); control
 * frames (small, rare) are always accepted so a client learns why its output stopped.
 */
final class OutboundQueue {
    /** A text ({@code String}) or binary ({@code byte[]}) frame. */
    record Frame(Object payload, int size) {
        static Frame text(String s) {
            return new Frame(s, s.length());
        }

        static Frame binary(byte[] b) {
            return new Frame(b, b.length);
        }
    }

    private final long limitBytes;
    private final ArrayDeque<Frame> frames = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition nonEmpty = lock.newCondition();
    private long queuedBytes;
    private boolean closed;

    OutboundQueue(long limitBytes) {
        this.limitBytes = limitBytes;
    }

    /** Queues an output frame unless that would pass the byte limit; returns false when refused. */
    boolean offerOutput(Frame frame) {
        lock.lock();
        try {
            if (closed) {
                return true; // nothing to desync: the connection is going away
            }
            if (queuedBytes + frame.size() > limitBytes && !frames.isEmpty()) {
                return false;
            }
            add(frame);
            return true;
        } finally {
            lock.unlock();
        }
    }

    void offerControl(Frame frame) {
        lock.lock();
        try {
            if (!closed) {
                add(frame);
            }
        } finally {
            lock.unlock();
        }
    }

    private void add(Frame frame) {
        frames.addLast(frame);
        queuedBytes += frame.size();
        nonEmpty.signal();
    }

    /** Next frame, or null once closed and drained... or closed. Blocks while empty. */
    Frame take() throws InterruptedException {
        lock.lock();
        try {
            while (frames.isEmpty() && !closed) {
                nonEmpty.await(30, TimeUnit.SECONDS);
            }
            if (closed) {
                return null;
            }
            Frame f = frames.removeFirst();
            queuedBytes -= f.size();
            return f;
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            closed = true;
            frames.clear();
            queuedBytes = 0;
            nonEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    long queuedBytes() {
        lock.lock();
        try {
            return queuedBytes;
        } finally {
            lock.unlock();
        }
    }
}
