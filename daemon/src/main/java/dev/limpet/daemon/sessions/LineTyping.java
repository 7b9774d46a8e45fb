package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.daemon.backend.PasteMode;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.terminal.pty.ExitStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Types a line for a person ({@code limpet send}, {@code POST /api/sessions/ID/send}): the text,
 * then Enter as a write of its own once the program has taken the text ({@link EnterTiming}). A
 * program that turned on bracketed paste gets the text as a paste, one that did not gets it as
 * keys. Text and Enter in one write, or an Enter right behind the text, are part of a paste to
 * Codex and Gemini CLI (a pasted newline is not a submit), so the text would sit in their input box.
 *
 * <p>Thread contract: any thread; a call blocks its caller until the Enter is written (at most
 * {@link EnterTiming#LIMIT} after the text).
 */
final class LineTyping {
    private static final Logger LOG = LoggerFactory.getLogger(LineTyping.class);
    /** ESC [ 200 ~ and ESC [ 201 ~: the start and end of a bracketed paste. */
    static final byte[] PASTE_START = {0x1b, '[', '2', '0', '0', '~'};
    static final byte[] PASTE_END = {0x1b, '[', '2', '0', '1', '~'};
    private static final byte[] ENTER = {'\r'};

    private final Backend backend;
    private final BiConsumer<String, byte[]> input;
    private final Duration quiet;
    private final Duration limit;

    /** {@code input}: how keys reach the session (the daemon's keystroke path). */
    LineTyping(Backend backend, BiConsumer<String, byte[]> input, Duration quiet, Duration limit) {
        this.backend = backend;
        this.input = input;
        this.quiet = quiet;
        this.limit = limit;
    }

    LineTyping(Backend backend, BiConsumer<String, byte[]> input) {
        this(backend, input, EnterTiming.QUIET, EnterTiming.LIMIT);
    }

    void type(String id, String text, boolean enter) {
        if (text.isEmpty()) {
            if (enter) {
                input.accept(id, ENTER);
            }
            return;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (backend instanceof PasteMode p && p.bracketedPaste(id)) {
            byte[] framed = new byte[PASTE_START.length + bytes.length + PASTE_END.length];
            System.arraycopy(PASTE_START, 0, framed, 0, PASTE_START.length);
            System.arraycopy(bytes, 0, framed, PASTE_START.length, bytes.length);
            System.arraycopy(PASTE_END, 0, framed, PASTE_START.length + bytes.length, PASTE_END.length);
            bytes = framed;
        }
        RuntimeInfo runtime = enter ? backend.list().stream().filter(r -> r.sessionId().equals(id) && r.running()).findFirst().orElse(null)
                : null;
        if (runtime == null) {
            // No Enter to time, or no running program (the write below says so with its error).
            input.accept(id, bytes);
            if (enter) {
                input.accept(id, ENTER);
            }
            return;
        }
        Watch watch = new Watch();
        try (Attachment a = backend.attach(id, runtime.endOffset(), Long.MAX_VALUE, watch)) {
            watch.start(System.nanoTime());
            input.accept(id, bytes);
            if (watch.awaitTaken() == EnterTiming.Outcome.LIMIT_REACHED) {
                LOG.debug("session {}: the program drew nothing quiet within {} ms of the typed text; Enter follows all the same", id,
                        limit.toMillis());
            }
        }
        input.accept(id, ENTER);
    }

    /** The session's output while the text is taken: each chunk moves the timing on. */
    private final class Watch implements OutputListener {
        private EnterTiming timing;
        private boolean ended;

        synchronized void start(long typedAt) {
            timing = new EnterTiming(typedAt, quiet, limit);
        }

        @Override
        public synchronized void onOutput(OutputChunk chunk) {
            if (timing != null) {
                timing.output(System.nanoTime());
                notifyAll();
            }
        }

        @Override
        public synchronized void onExit(ExitStatus status) {
            ended = true;
            notifyAll();
        }

        @Override
        public synchronized void onLost(long deliveredOffset) {
            ended = true;
            notifyAll();
        }

        synchronized EnterTiming.Outcome awaitTaken() {
            long now = System.nanoTime();
            while (!ended && timing.at(now) == EnterTiming.Outcome.WAIT) {
                long wait = Math.max(1, timing.nanosToNextAnswer(now));
                try {
                    wait(wait / 1_000_000, (int) (wait % 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                now = System.nanoTime();
            }
            return timing.at(now);
        }
    }
}
