package dev.limpet.daemon.backend.tmux;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tmux control-mode client ({@code tmux -C attach -t =<name>}): commands go to its stdin as
 * lines, its stdout is read on a platform thread of its own and handed to {@link Events} in order.
 * Replies are matched to commands first-in first-out (tmux answers a client's commands in order).
 * Events and reply handlers run on the reader thread: they must not block.
 */
final class ControlClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ControlClient.class);
    /** A control line longer than this is not tmux talking: the client is dropped. */
    static final int MAX_LINE = 16 << 20;

    interface Events {
        void output(byte[] data);

        void paused();

        void continued();

        void subscription(String name, String value);

        /** The client ended (tmux said {@code %exit}, or its stdout closed); called once. */
        void ended(String reason);
    }

    private final String name;
    private final Process process;
    private final OutputStream stdin;
    private final Events events;
    private final ArrayDeque<Consumer<ControlEvent.Reply>> pending = new ArrayDeque<>();
    private final Object writeLock = new Object();
    /** Lines for tmux, in order; an empty array ends the writer. */
    private final LinkedBlockingQueue<byte[]> outbox = new LinkedBlockingQueue<>();
    private volatile boolean ended;

    ControlClient(String name, Process process, Events events) {
        this.name = name;
        this.process = process;
        this.stdin = process.getOutputStream();
        this.events = events;
        Thread.ofPlatform().daemon().name("tmux-control-" + name).start(this::readLoop);
        Thread.ofPlatform().daemon().name("tmux-write-" + name).start(this::writeLoop);
    }

    /**
     * Queues one command line; {@code onReply} runs on the reader thread, in order, when tmux
     * answers. Never blocks: a writer thread of its own sends the lines, so a caller holding a
     * lock (the pane's, on the reader thread) can never wait on tmux reading its input while tmux
     * waits on us reading its output.
     */
    void command(String line, Consumer<ControlEvent.Reply> onReply) throws IOException {
        if (line.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("a control command is one line");
        }
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (writeLock) {
            if (ended) {
                throw new IOException("the tmux control client of " + name + " has ended");
            }
            synchronized (pending) {
                pending.addLast(onReply);
            }
            outbox.add(bytes);
        }
    }

    private void writeLoop() {
        try {
            while (true) {
                byte[] first = outbox.take();
                if (first.length == 0) {
                    return;
                }
                stdin.write(first);
                for (byte[] more = outbox.poll(); more != null; more = outbox.poll()) {
                    if (more.length == 0) {
                        stdin.flush();
                        return;
                    }
                    stdin.write(more);
                }
                stdin.flush();
            }
        } catch (IOException e) {
            LOG.debug("tmux {}: writing to the control client failed: {}", name, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void command(String line) throws IOException {
        command(line, r -> {
            if (!r.ok()) {
                LOG.debug("tmux {}: '{}' failed: {}", name, line, r.lines());
            }
        });
    }

    boolean ended() {
        return ended;
    }

    /**
     * Returns once tmux has attached this client: it asks for the client's name until there is one.
     * Commands a control client sends before its attach is done run without a client ("no current
     * client": a size is silently not set), and output the pane prints before it does never reaches
     * the client. Gives up when the client ends or after {@code timeout}.
     */
    void awaitAttached(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            CompletableFuture<ControlEvent.Reply> answer = new CompletableFuture<>();
            command("display-message -p '#{client_name}'", answer::complete);
            ControlEvent.Reply r = null;
            while (r == null) {
                try {
                    r = answer.get(100, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    if (ended) {
                        throw new IOException("the tmux control client of " + name + " ended before it was attached");
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IOException("the tmux control client of " + name + " was not attached after " + timeout.toSeconds() + " s");
                    }
                } catch (ExecutionException e) {
                    throw new IOException("the tmux control client of " + name + " failed: " + e.getCause().getMessage(), e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while attaching to tmux session " + name, e);
                }
            }
            if (r.ok() && !r.lines().isEmpty() && !r.lines().getFirst().isBlank()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("the tmux control client of " + name + " was not attached after " + timeout.toSeconds() + " s: "
                        + r.lines());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while attaching to tmux session " + name, e);
            }
        }
    }

    private void readLoop() {
        ControlLines parser = new ControlLines();
        String reason = "the control client's output closed";
        try (InputStream in = process.getInputStream()) {
            byte[] chunk = new byte[64 * 1024];
            byte[] line = new byte[8192];
            int len = 0;
            int n;
            read:
            while ((n = in.read(chunk)) > 0) {
                int from = 0;
                while (from < n) {
                    int nl = from;
                    while (nl < n && chunk[nl] != '\n') {
                        nl++;
                    }
                    int part = nl - from;
                    if (len + part > line.length) {
                        if (len + part > MAX_LINE) {
                            reason = "tmux sent a line longer than " + MAX_LINE + " bytes";
                            break read;
                        }
                        line = Arrays.copyOf(line, Math.max(line.length * 2, len + part));
                    }
                    System.arraycopy(chunk, from, line, len, part);
                    len += part;
                    from = nl + 1;
                    if (nl == n) {
                        break;
                    }
                    ControlEvent e = parser.parse(line, len);
                    len = 0;
                    if (e != null && dispatch(e)) {
                        String why = ((ControlEvent.Exit) e).reason();
                        reason = why.isEmpty() ? "tmux ended the control client" : "tmux: " + why;
                        break read;
                    }
                }
            }
        } catch (IOException e) {
            reason = "reading the control client failed: " + e.getMessage();
        } catch (RuntimeException e) {
            LOG.error("tmux {}: control client reader failed", name, e);
            reason = "the control client reader failed: " + e;
        }
        end(reason);
    }

    /** @return true when the client is leaving */
    private boolean dispatch(ControlEvent e) {
        switch (e) {
            case ControlEvent.Output o -> events.output(o.data());
            case ControlEvent.Paused p -> events.paused();
            case ControlEvent.Continued c -> events.continued();
            case ControlEvent.Subscription s -> events.subscription(s.name(), s.value());
            case ControlEvent.Reply r -> {
                if (r.ours()) {
                    Consumer<ControlEvent.Reply> handler;
                    synchronized (pending) {
                        handler = pending.pollFirst();
                    }
                    if (handler != null) {
                        handler.accept(r);
                    }
                }
            }
            case ControlEvent.Exit x -> {
                return true;
            }
            case ControlEvent.Other o -> { }
        }
        return false;
    }

    private void end(String reason) {
        synchronized (writeLock) {
            if (ended) {
                return;
            }
            ended = true;
            outbox.add(new byte[0]);
        }
        try {
            stdin.close();
        } catch (IOException ignored) {
            // gone already
        }
        process.destroy();
        events.ended(reason);
    }

    /** Detaches (the tmux session lives on). */
    @Override
    public void close() {
        synchronized (writeLock) {
            if (ended) {
                return;
            }
            outbox.add(new byte[0]);
            try {
                stdin.close();
            } catch (IOException ignored) {
                // gone already
            }
        }
        process.destroy();
    }
}
