package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.Attachment;
import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.OutputListener;
import dev.limpet.daemon.backend.PasteMode;
import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.terminal.pty.ExitStatus;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
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
    private final Function<String, String> screen;

    /**
     * {@code input}: how keys reach the session (the daemon's keystroke path); {@code screen}: the
     * session's screen as text, empty when it has none.
     */
    LineTyping(Backend backend, BiConsumer<String, byte[]> input, Function<String, String> screen) {
        this.backend = backend;
        this.input = input;
        this.screen = screen;
    }

    TypedText type(String id, String text, boolean enter) {
        if (text.isEmpty()) {
            if (enter) {
                input.accept(id, ENTER);
            }
            return TypedText.NOT_WATCHED;
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
            return TypedText.NOT_WATCHED;
        }
        String mark = mark(text);
        int before = count(screen.apply(id), mark);
        Watch watch = new Watch();
        EnterTiming.Outcome outcome;
        try (Attachment a = backend.attach(id, runtime.endOffset(), Long.MAX_VALUE, watch)) {
            watch.start(System.nanoTime());
            input.accept(id, bytes);
            outcome = watch.awaitTaken(() -> count(screen.apply(id), mark) > before);
            if (outcome == EnterTiming.Outcome.SETTLED || outcome == EnterTiming.Outcome.LIMIT_REACHED) {
                LOG.info("session {}: typed text not seen on the screen ({}); Enter follows all the same", id,
                        outcome == EnterTiming.Outcome.SETTLED ? "the program drew something else and went quiet"
                                : "nothing quiet drawn within " + EnterTiming.LIMIT.toMillis() + " ms");
            }
        }
        input.accept(id, ENTER);
        return outcome == EnterTiming.Outcome.TAKEN ? TypedText.SHOWN : TypedText.NOT_SHOWN;
    }

    /**
     * What of the text the screen shows once the program took it: the end of its last word (a
     * program wraps its input box at words), at most 12 characters, so a long line wrapped or cut
     * still shows it.
     */
    static String mark(String text) {
        String t = text.strip();
        int space = Math.max(t.lastIndexOf(' '), Math.max(t.lastIndexOf('\n'), t.lastIndexOf('\t')));
        String word = t.substring(space + 1);
        return word.length() <= 12 ? word : word.substring(word.length() - 12);
    }

    static int count(String screen, String mark) {
        if (mark.isEmpty()) {
            return 0;
        }
        int n = 0;
        for (int i = screen.indexOf(mark); i >= 0; i = screen.indexOf(mark, i + mark.length())) {
            n++;
        }
        return n;
    }

    /** The session's output while the text is taken: each chunk moves the timing on. */
    private final class Watch implements OutputListener {
        private EnterTiming timing;
        private boolean ended;

        synchronized void start(long typedAt) {
            timing = new EnterTiming(typedAt);
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

        /**
         * Waits for the timing's answer; {@code shown} looks at the screen once the output went
         * quiet, outside this monitor (the screen may come from the thread that delivers output).
         */
        EnterTiming.Outcome awaitTaken(BooleanSupplier shown) {
            while (true) {
                boolean look;
                synchronized (this) {
                    look = timing.quiet(System.nanoTime());
                }
                boolean textShown = look && shown.getAsBoolean();
                synchronized (this) {
                    long now = System.nanoTime();
                    // Output since the look makes the screen seen stale: quiet() is false again then.
                    EnterTiming.Outcome o = timing.at(now, textShown && timing.quiet(now));
                    if (ended || o != EnterTiming.Outcome.WAIT) {
                        return o;
                    }
                    long wait = Math.max(1, timing.nanosToNextAnswer(now));
                    try {
                        wait(wait / 1_000_000, (int) (wait % 1_000_000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return o;
                    }
                }
            }
        }
    }
}
