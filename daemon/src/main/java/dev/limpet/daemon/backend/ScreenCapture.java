package dev.limpet.daemon.backend;

/** Optional backend ability: the session's visible screen as plain text, or cell by cell. */
public interface ScreenCapture {
    String captureText(String sessionId);

    /** The screen cell by cell, with the cursor and title (its model's view: what every viewer must show). */
    dev.limpet.protocol.ScreenDump captureScreen(String sessionId);
}
