package dev.limpet.daemon.revive;

import dev.limpet.vt.ScreenModel;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** The line a revived session shows between its history and the new program's output. */
public final class RestoreMarker {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private RestoreMarker() {}

    /**
     * {@code ── restored <time>: the previous process ended ──} on a line of its own below
     * everything the old program left on the screen, and a clean screen below it for the new
     * program. The history stops wherever the old program was: in the alternate screen, inside a
     * scroll region or a colour, with the cursor hidden, or with its cursor moved up above what it
     * drew (an inline TUI such as Claude Code's sits in its input box with its footer below). So the
     * history is played through a screen model of the session's size to learn where it ended; then
     * the marker leaves the alternate screen, resets the region and attributes, shows the cursor,
     * moves below the last row with text, writes the line, and erases the rest of the screen: the
     * new program's first screen is drawn on blank rows, not over the old one's.
     */
    public static String after(byte[] history, int cols, int rows, Instant at, ZoneId zone) {
        ScreenModel screen = ScreenModel.create(cols, rows, 0);
        screen.feed(history);
        StringBuilder out = new StringBuilder();
        if (screen.isAlternateScreen()) {
            out.append("\u001b[?1049l"); // back to the main screen and the cursor it saved
            screen.feed("\u001b[?1049l".getBytes(StandardCharsets.US_ASCII));
        }
        out.append("\u001b[r\u001b[0m\u001b[?25h");
        int lastText = lastRowWithText(screen);
        if (lastText > screen.cursor().y()) {
            out.append("\u001b[").append(lastText + 1).append(";1H");
        }
        return out.append("\r\n── restored ").append(FORMAT.format(at.atZone(zone))).append(": the previous process ended ──\r\n")
                .append("\u001b[J").toString();
    }

    private static int lastRowWithText(ScreenModel screen) {
        String[] lines = screen.text().split("\n", -1);
        for (int y = Math.min(lines.length, screen.rows()) - 1; y >= 0; y--) {
            if (!lines[y].isBlank()) {
                return y;
            }
        }
        return -1;
    }
}
