package dev.limpet.terminal.session;

import dev.limpet.protocol.ScreenDump;

/**
 * What a session keeps of its screen, fed the output in order by its {@link ScreenFeeder} ({@link VtScreen}
 * in production). An interface so a data plane depends on what it needs of a screen, not on the emulator.
 */
public interface ScreenFeed {
    void feed(byte[] buf, int off, int len);

    void resize(int cols, int rows);

    /** ANSI bytes that redraw the screen on a freshly reset terminal of the same size. */
    byte[] snapshot();

    /** The visible screen as plain text. */
    String text();

    /** The visible screen cell by cell, with the cursor and title. */
    ScreenDump dump();

    /** Whether the program turned on bracketed paste (DECSET 2004) as of the output fed so far. */
    default boolean bracketedPaste() {
        return false;
    }

    /** The window title (OSC 0 or 2) as of the output fed so far; "" when none. */
    default String title() {
        return "";
    }
}
