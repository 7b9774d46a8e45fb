package dev.limpet.protocol;

import java.util.List;

/**
 * A session's screen as its model holds it, cell by cell: what every viewer must show
 * ({@code GET /api/sessions/{id}/screen}, and the worker's {@code capture} with {@code cells}).
 *
 * @param cols columns
 * @param rows rows
 * @param cursorX the cursor's column (equal to {@code cols} while a wrap is pending)
 * @param cursorY the cursor's row
 * @param cursorVisible DECTCEM
 * @param alternateScreen whether the alternate screen is shown
 * @param title the window title, "" when none
 * @param lines the visible rows, top to bottom, {@code cols} cells each
 */
public record ScreenDump(int cols, int rows, int cursorX, int cursorY, boolean cursorVisible, boolean alternateScreen,
        String title, List<List<Cell>> lines) {

    public ScreenDump {
        lines = lines == null ? List.of() : lines.stream().map(List::copyOf).toList();
    }

    /**
     * One cell.
     *
     * @param chars its text: "" for an empty cell or the right half of a wide character
     * @param width 1, 2 for a wide character, 0 for its right half
     * @param fg foreground: {@code default}, {@code p16:N}, {@code p256:N} or {@code rgb:RRGGBB}
     * @param bg background, as {@code fg}
     * @param attrs the attributes set, in this order: bold, dim, italic, underline (or
     *     double-underline, curly-underline, dotted-underline, dashed-underline), blink, inverse,
     *     invisible, strikethrough, overline
     */
    public record Cell(String chars, int width, String fg, String bg, List<String> attrs) {
        public Cell {
            attrs = attrs == null ? List.of() : List.copyOf(attrs);
        }
    }
}
