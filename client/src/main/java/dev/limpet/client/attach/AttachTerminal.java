package dev.limpet.client.attach;

/**
 * The person's terminal as {@link AttachController} sees it. Written from the controller's loop
 * thread, and once more by a shutdown hook that gives the terminal back ({@link AttachScreen}
 * orders the two).
 */
public interface AttachTerminal {
    int columns();

    int rows();

    /** Writes bytes to the screen, unchanged, and flushes them. */
    void write(byte[] data);

    /** True for a terminal; false for a pipe or a file (output is then written as it comes). */
    boolean interactive();

    /** A message for the person where no status line can be painted (a pipe): its own line on stderr. */
    void note(String text);
}
