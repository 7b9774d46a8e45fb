package dev.limpet.vt;

/**
 * The modes a reattaching client must get back.
 *
 * @param applicationCursorKeys DECCKM (mode 1)
 * @param applicationKeypad DECKPAM / DECKPNM (ESC = / ESC >, mode 66)
 * @param bracketedPaste mode 2004
 * @param insert IRM (mode 4)
 * @param origin DECOM (mode 6)
 * @param wraparound DECAWM (mode 7)
 * @param reverseWraparound mode 45
 * @param sendFocus focus events (mode 1004)
 * @param synchronizedOutput mode 2026
 * @param mouseTracking 0 none, 1 X10 (9), 2 normal (1000), 3 button-event (1002), 4 any-event
 *     (1003)
 * @param mouseEncoding 0 default, 1 SGR (1006), 2 SGR pixels (1016)
 * @param newLine LNM (mode 20): line feed also returns the carriage
 */
public record TerminalModes(boolean applicationCursorKeys, boolean applicationKeypad,
        boolean bracketedPaste, boolean insert, boolean origin, boolean wraparound,
        boolean reverseWraparound, boolean sendFocus, boolean synchronizedOutput, int mouseTracking,
        int mouseEncoding, boolean newLine) {
}
