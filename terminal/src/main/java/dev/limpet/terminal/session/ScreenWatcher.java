package dev.limpet.terminal.session;

/**
 * What a session's screen model saw besides the cells (the evidence of what an agent is
 * doing): that output arrived, and the window title. Called on the session's screen feeder thread,
 * or on its PTY reader once a few bytes it fed the model itself have gone to the viewers;
 * implementations must return quickly and never block.
 */
public interface ScreenWatcher {
    /** Output reached the screen model (once per batch the feeder fed: many chunks may make one call). */
    void outputSeen();

    /**
     * The window title (OSC 0 or 2) changed to {@code title} ("" when cleared). At most one call per
     * {@link ScreenFeeder#TITLE_INTERVAL_MILLIS} ms, and the latest title is always delivered: a
     * spinner that animates many times a second costs a few calls, not one per frame.
     */
    void titleChanged(String title);
}
