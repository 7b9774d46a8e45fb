package dev.limpet.daemon.sessions;

import java.util.List;

/**
 * What a waiting session asks: the last non-blank line of its screen, as a client shows it beside
 * the session's name ("Do you want to proceed?"). The screen comes from the data plane's screen
 * model; this only picks the line.
 */
@FunctionalInterface
interface WaitingLines {
    /** Longest line kept: a list entry is no place for a paragraph. */
    int MAX_CHARS = 200;

    /** The session's last non-blank screen line, trimmed and cut; null when it has no screen or shows nothing. */
    String lastLine(String sessionId);

    /** The last non-blank line of {@code screen} (lines separated by newlines), trimmed, cut, control characters removed. */
    static String lastNonBlank(String screen) {
        if (screen == null) {
            return null;
        }
        List<String> lines = screen.lines().toList();
        for (int i = lines.size() - 1; i >= 0; i--) {
            String clean = lines.get(i).replaceAll("[\\p{Cntrl}&&[^\\t]]", "").replace('\t', ' ').strip();
            if (!clean.isEmpty()) {
                return clean.length() > MAX_CHARS ? clean.substring(0, MAX_CHARS - 1) + "…" : clean;
            }
        }
        return null;
    }
}
