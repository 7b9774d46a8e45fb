package dev.limpet.client.attach;

/**
 * The person's terminal as {@link AttachController} sees it. Called only from the controller's loop
 * thread, so writes, bells and status lines never interleave.
 */
public interface AttachTerminal {
    int columns();

    int rows();

    /** Writes session output to the screen, unchanged, and flushes it. */
    void write(byte[] data);

    /** Rings the bell (a keystroke was discarded). */
    void bell();

    /** Shows a one-line status message over the bottom line, leaving the cursor where it was. */
    void showStatus(String text);

    /** Removes the status line, if one is shown. */
    void clearStatus();
}
