package dev.limpet.vt;

/** Receives the actions of {@link Parser}. */
interface ParserHandler {
    /** Printable code points {@code data[start..end)}. */
    void print(int[] data, int start, int end);

    /** A C0 or C1 control. */
    void execute(int code);

    /** A CSI sequence; {@code ident} is (collected prefix/intermediates << 8 | final). */
    void csi(int ident, Params params);

    /** An escape sequence; {@code ident} is (collected intermediates << 8 | final). */
    void esc(int ident);

    /** A complete OSC string with a numeric identifier ({@code -1} when there was none). */
    void osc(int id, String payload);
}
