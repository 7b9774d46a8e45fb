package dev.limpet.testkit;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * An input box that, like Gemini CLI, takes an Enter arriving within 40 ms of text it was given
 * as part of that text (a newline, not a submit): raw mode without echo, bracketed paste on
 * (DECSET 2004) when given {@code --bracketed-paste}, {@code ready} once it reads. Each piece of
 * text (a paste, or keys without bracketed paste) is drawn as {@code box: <text so far>}; an Enter
 * within 40 ms of the last text drawn prints {@code newline, not submitted}; a later Enter prints
 * {@code submitted: <text>} and empties the box.
 */
public final class EnterGuard {
    static final long GUARD_NANOS = 40_000_000;
    private static final String PASTE_START = "\u001b[200~";
    private static final String PASTE_END = "\u001b[201~";

    private EnterGuard() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        OutputStream out = RawTerminal.enter(args);
        InputStream in = new FileInputStream(FileDescriptor.in);
        StringBuilder box = new StringBuilder();
        StringBuilder pending = new StringBuilder();
        boolean inPaste = false;
        long lastText = Long.MIN_VALUE;
        byte[] buf = new byte[4096];
        int n;
        while ((n = in.read(buf)) > 0) {
            pending.append(new String(buf, 0, n, StandardCharsets.UTF_8));
            StringBuilder said = new StringBuilder();
            boolean textCame = false;
            while (!pending.isEmpty()) {
                String p = pending.toString();
                if (inPaste) {
                    int end = p.indexOf(PASTE_END);
                    if (end < 0) {
                        break; // the rest of the paste comes in a later read
                    }
                    box.append(p, 0, end);
                    pending.delete(0, end + PASTE_END.length());
                    inPaste = false;
                    textCame = true;
                } else if (p.startsWith(PASTE_START)) {
                    pending.delete(0, PASTE_START.length());
                    inPaste = true;
                } else if (p.startsWith("\u001b") && PASTE_START.startsWith(p)) {
                    break; // a paste start split between reads
                } else if (p.charAt(0) == '\r') {
                    pending.deleteCharAt(0);
                    if (textCame || System.nanoTime() - lastText < GUARD_NANOS) {
                        box.append('\n');
                        said.append("newline, not submitted\r\n");
                    } else {
                        said.append("submitted: ").append(box).append("\r\n");
                        box.setLength(0);
                    }
                } else {
                    box.append(p.charAt(0));
                    pending.deleteCharAt(0);
                    textCame = true;
                }
            }
            if (textCame) {
                said.append("box: ").append(box.toString().replace("\n", "\\n")).append("\r\n");
            }
            out.write(said.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            if (textCame) {
                lastText = System.nanoTime();
            }
        }
    }
}
