package dev.limpet.bench.client;

import java.util.function.IntConsumer;

/**
 * Strips escape sequences from a terminal byte stream (as a tmux client writes it) and passes on
 * the printable ASCII characters: what a reader of the screen would see of the program's output.
 * Streaming: sequences may be split across calls.
 */
public final class TerminalText {
    private enum State { TEXT, ESC, CSI, OSC, OSC_ESC, INTERMEDIATE }

    private State state = State.TEXT;

    public void feed(byte[] buf, int off, int len, IntConsumer printable) {
        for (int i = off; i < off + len; i++) {
            int b = buf[i] & 0xff;
            switch (state) {
                case TEXT -> {
                    if (b == 0x1b) {
                        state = State.ESC;
                    } else if (b >= 0x20 && b < 0x7f) {
                        printable.accept(b);
                    }
                }
                case ESC -> {
                    if (b == '[') {
                        state = State.CSI;
                    } else if (b == ']' || b == 'P' || b == '_' || b == '^') {
                        state = State.OSC;
                    } else if (b >= 0x20 && b <= 0x2f) {
                        state = State.INTERMEDIATE;
                    } else {
                        state = State.TEXT;
                    }
                }
                case CSI -> {
                    if (b >= 0x40 && b <= 0x7e) {
                        state = State.TEXT;
                    }
                }
                case INTERMEDIATE -> {
                    if (b >= 0x30 && b <= 0x7e) {
                        state = State.TEXT;
                    }
                }
                case OSC -> {
                    if (b == 0x07) {
                        state = State.TEXT;
                    } else if (b == 0x1b) {
                        state = State.OSC_ESC;
                    }
                }
                case OSC_ESC -> state = b == '\\' ? State.TEXT : State.OSC;
            }
        }
    }
}
