package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.Backend;
import dev.limpet.daemon.backend.ScreenCapture;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.ScreenDump;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the sessions' screens say, as the data plane's models hold them: the text and cells a
 * person captures, the last line a waiting agent shows, and the title each program set (OSC 0/2,
 * cleaned; in memory only). Thread-safe.
 */
final class SessionScreens {
    private static final int MAX_TITLE = 120;

    private final Backend backend;
    private final Map<String, String> titles = new ConcurrentHashMap<>();

    SessionScreens(Backend backend) {
        this.backend = backend;
    }

    /** The title a running session's program set last, or null. */
    String title(String id) {
        return titles.get(id);
    }

    void titleChanged(String id, String title) {
        String clean = title == null ? "" : title.replaceAll("\\p{Cntrl}", "").strip();
        if (clean.isEmpty()) {
            titles.remove(id);
        } else {
            titles.put(id, clean.length() > MAX_TITLE ? clean.substring(0, MAX_TITLE - 1) + "…" : clean);
        }
    }

    void forget(String id) {
        titles.remove(id);
    }

    /** The screen as text for {@link LineTyping}; empty when there is none. */
    String textOrEmpty(String id) {
        try {
            return backend instanceof ScreenCapture capture ? capture.captureText(id) : "";
        } catch (RuntimeException e) {
            return "";
        }
    }

    /** The last non-blank line of a running session's screen, or null (see {@link WaitingLines}). */
    String lastLine(String id) {
        if (backend instanceof ScreenCapture capture && backend.isRunning(id)) {
            return WaitingLines.lastNonBlank(capture.captureText(id));
        }
        return null;
    }

    /** The screen as text, for a person; {@code session_not_running} when the session has none. */
    String capture(String id) {
        return capturing(id).captureText(id);
    }

    /** The screen cell by cell, for a person; {@code session_not_running} when the session has none. */
    ScreenDump captureScreen(String id) {
        return capturing(id).captureScreen(id);
    }

    private ScreenCapture capturing(String id) {
        if (backend instanceof ScreenCapture capture && backend.list().stream().anyMatch(r -> r.sessionId().equals(id))) {
            return capture;
        }
        throw new ProtocolException(ErrorCode.SESSION_NOT_RUNNING, "session " + id + " has no screen to capture");
    }
}
