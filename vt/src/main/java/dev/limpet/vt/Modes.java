package dev.limpet.vt;

/**
 * Terminal modes that change how input is interpreted or how a client must behave. Field names
 * follow xterm.js' {@code terminal.modes} and {@code decPrivateModes}.
 */
final class Modes {
    /** No mouse reporting, X10 (9), VT200 (1000), button-event (1002), any-event (1003). */
    static final int MOUSE_NONE = 0, MOUSE_X10 = 1, MOUSE_VT200 = 2, MOUSE_DRAG = 3, MOUSE_ANY = 4;
    /** Default, SGR (1006), SGR pixels (1016) mouse encoding. */
    static final int ENC_DEFAULT = 0, ENC_SGR = 1, ENC_SGR_PIXELS = 2;
    /** DECSCUSR cursor styles; NONE means "terminal default". */
    static final int STYLE_NONE = 0, STYLE_BLOCK = 1, STYLE_UNDERLINE = 2, STYLE_BAR = 3;

    boolean insert;
    boolean applicationCursorKeys;
    boolean applicationKeypad;
    boolean bracketedPaste;
    boolean origin;
    boolean reverseWraparound;
    boolean sendFocus;
    boolean synchronizedOutput;
    boolean wraparound = true;
    int cursorStyle = STYLE_NONE;
    /** DECSCUSR blink: -1 unset, 0 steady, 1 blinking. */
    int cursorBlink = -1;
    int mouseProtocol = MOUSE_NONE;
    int mouseEncoding = ENC_DEFAULT;

    /** Resets what xterm.js resets on RIS and DECSTR (not cursor visibility). */
    void reset() {
        insert = false;
        applicationCursorKeys = false;
        applicationKeypad = false;
        bracketedPaste = false;
        origin = false;
        reverseWraparound = false;
        sendFocus = false;
        synchronizedOutput = false;
        wraparound = true;
        cursorStyle = STYLE_NONE;
        cursorBlink = -1;
    }
}
