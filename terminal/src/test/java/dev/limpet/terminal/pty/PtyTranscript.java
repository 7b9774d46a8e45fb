package dev.limpet.terminal.pty;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Drains a PTY on a platform thread and lets tests wait for what the child printed. */
final class PtyTranscript implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final PtyProcess pty;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CountDownLatch eof = new CountDownLatch(1);
    private volatile IOException failure;

    PtyTranscript(PtyProcess pty) {
        this.pty = pty;
        Thread.ofPlatform().daemon().name("pty-transcript-" + pty.pid()).start(this::drain);
    }

    static PtyTranscript of(PtyProcess pty) {
        return new PtyTranscript(pty);
    }

    private void drain() {
        byte[] buf = new byte[8192];
        try {
            for (int n; (n = pty.read(buf, 0, buf.length)) > 0; ) {
                synchronized (this) {
                    bytes.write(buf, 0, n);
                    notifyAll();
                }
            }
        } catch (IOException e) {
            failure = e;
        } finally {
            eof.countDown();
            synchronized (this) {
                notifyAll();
            }
        }
    }

    synchronized String text() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    synchronized int size() {
        return bytes.size();
    }

    synchronized byte[] bytes() {
        return bytes.toByteArray();
    }

    /** Waits until the output contains {@code expected}; returns the whole output so far. */
    String await(String expected) throws InterruptedException {
        return awaitText(t -> t.contains(expected), "output containing " + quote(expected));
    }

    synchronized String awaitText(Predicate<String> condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.test(text())) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || (eof.getCount() == 0 && !condition.test(text()))) {
                throw new AssertionError("expected " + what + (eof.getCount() == 0 ? " before end of output" : " within " + TIMEOUT)
                        + "; got " + quote(text()) + (failure != null ? "; read failed: " + failure : ""));
            }
            TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
        }
        return text();
    }

    /** Waits until no output has arrived for {@code quiet}: the child is idle, waiting for input. */
    void awaitQuiet(Duration quiet) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        for (int seen = -1; seen != size(); ) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("output did not stop within " + TIMEOUT);
            }
            seen = size();
            Thread.sleep(quiet.toMillis());
        }
    }

    /** Waits until read returned -1 (or failed). */
    void awaitEof() throws InterruptedException {
        if (!eof.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("read did not return -1 within " + TIMEOUT + "; output " + quote(text()));
        }
    }

    boolean reachedEof() {
        return eof.getCount() == 0;
    }

    IOException failure() {
        return failure;
    }

    void type(String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        pty.write(b, 0, b.length);
    }

    private static String quote(String s) {
        return "\"" + s.replace("\r", "\\r").replace("\n", "\\n").replace("\u001b", "\\e") + "\"";
    }

    @Override
    public void close() {
        pty.close();
    }
}
