package dev.limpet.terminal.session;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A stand-in for a screen model: remembers the last bytes of output and renders them as text with
 * escape sequences stripped. Used only when no VT screen model is available; cannot snapshot.
 */
public final class TailScreen implements ScreenFeed {
    private static final int KEEP = 32 * 1024;
    private static final Pattern ESCAPES = Pattern.compile(
            "\u001b\\[[0-?]*[ -/]*[@-~]|\u001b\\][^\u0007\u001b]*(\u0007|\u001b\\\\)|\u001b[()][0-9A-Za-z]|\u001b[@-Z\\\\-_=>78]");
    private final byte[] tail = new byte[KEEP];
    private int length;
    private int rows;

    public TailScreen(int rows) {
        this.rows = rows;
    }

    @Override
    public void feed(byte[] chunk) {
        if (chunk.length >= KEEP) {
            System.arraycopy(chunk, chunk.length - KEEP, tail, 0, KEEP);
            length = KEEP;
            return;
        }
        int overflow = length + chunk.length - KEEP;
        if (overflow > 0) {
            System.arraycopy(tail, overflow, tail, 0, length - overflow);
            length -= overflow;
        }
        System.arraycopy(chunk, 0, tail, length, chunk.length);
        length += chunk.length;
    }

    @Override
    public void resize(int cols, int rows) {
        this.rows = rows;
    }

    @Override
    public boolean canSnapshot() {
        return false;
    }

    @Override
    public boolean inAlternateScreen() {
        return false;
    }

    @Override
    public byte[] snapshot() {
        throw new UnsupportedOperationException("TailScreen cannot redraw a screen");
    }

    @Override
    public String text() {
        String raw = new String(tail, 0, length, StandardCharsets.UTF_8);
        String plain = ESCAPES.matcher(raw).replaceAll("").replace("\r\n", "\n");
        List<String> lines = new ArrayList<>();
        for (String line : plain.split("\n", -1)) {
            int cr = line.lastIndexOf('\r');
            String visible = (cr >= 0 ? line.substring(cr + 1) : line).replaceAll("[\\p{Cntrl}&&[^\t]]", "");
            lines.add(visible.stripTrailing());
        }
        while (!lines.isEmpty() && lines.getLast().isEmpty()) {
            lines.removeLast();
        }
        List<String> shown = lines.subList(Math.max(0, lines.size() - rows), lines.size());
        return String.join("\n", shown) + (shown.isEmpty() ? "" : "\n");
    }
}
