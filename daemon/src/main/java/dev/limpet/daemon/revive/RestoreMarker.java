package dev.limpet.daemon.revive;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** The line a revived session shows between its history and the new program's output. */
public final class RestoreMarker {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private RestoreMarker() {}

    /**
     * {@code ── restored <time>: the previous process ended ──} on a line of its own, after the
     * terminal's attributes were reset (the history may have stopped inside a colour).
     */
    public static String line(Instant at, ZoneId zone) {
        return "\u001b[0m\r\n── restored " + FORMAT.format(at.atZone(zone)) + ": the previous process ended ──\r\n";
    }
}
