package dev.limpet.daemon.sessions;

/** What limpet saw of the text it typed before it pressed Enter. */
public enum TypedText {
    /** The program drew the text: it read it. */
    SHOWN,
    /**
     * The program did not draw the text before the Enter went (it drew something else and went
     * quiet, or drew nothing for 5 s): it may not have read it (a program
     * still starting, or one that ignores keys for a while), or it reads without echo.
     */
    NOT_SHOWN,
    /** Nothing was watched: no text, no Enter, or no running program (the write says so). */
    NOT_WATCHED
}
