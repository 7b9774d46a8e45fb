package dev.limpet.daemon.backend;

/** Optional backend ability: the session's visible screen as plain text. */
public interface ScreenCapture {
    String captureText(String sessionId);
}
