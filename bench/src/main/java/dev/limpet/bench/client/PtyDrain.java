package dev.limpet.bench.client;

import dev.limpet.terminal.pty.PtyProcess;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a PTY master on a platform thread (native reads pin virtual threads) and hands every
 * chunk to a sink; {@link #eof()} completes with the nanoTime of end of file.
 */
public final class PtyDrain {
    /** Receives what the PTY's program wrote; called on the drain thread. */
    public interface Sink {
        void onBytes(byte[] buf, int len);
    }

    private final CompletableFuture<Long> eof = new CompletableFuture<>();

    private PtyDrain(PtyProcess pty, Sink sink, String name) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try {
                for (int n; (n = pty.read(buf, 0, buf.length)) > 0; ) {
                    sink.onBytes(buf, n);
                }
            } catch (IOException e) {
                // EIO once the slave side is gone: end of file
            } catch (RuntimeException e) {
                eof.completeExceptionally(e);
            }
            eof.complete(System.nanoTime());
        }, name);
        t.setDaemon(true);
        t.start();
    }

    public static PtyDrain start(PtyProcess pty, Sink sink, String name) {
        return new PtyDrain(pty, sink, name);
    }

    public CompletableFuture<Long> eof() {
        return eof;
    }
}
