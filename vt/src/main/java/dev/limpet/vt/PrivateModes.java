package dev.limpet.vt;

/** DECSET / DECRST (CSI ? Pm h / l) as xterm.js implements them. */
final class PrivateModes {
    private PrivateModes() {
    }

    static void set(Emulator t, int mode) {
        Modes m = t.modes;
        switch (mode) {
            case 1 -> m.applicationCursorKeys = true;
            case 2 -> {
                for (int g = 0; g < 4; g++) {
                    t.setgCharset(g, null);
                }
            }
            case 6 -> {
                m.origin = true;
                t.setCursor(0, 0);
            }
            case 7 -> m.wraparound = true;
            case 12 -> t.cursorBlinkOption = true;
            case 45 -> m.reverseWraparound = true;
            case 66 -> m.applicationKeypad = true;
            case 9 -> m.mouseProtocol = Modes.MOUSE_X10;
            case 1000 -> m.mouseProtocol = Modes.MOUSE_VT200;
            case 1002 -> m.mouseProtocol = Modes.MOUSE_DRAG;
            case 1003 -> m.mouseProtocol = Modes.MOUSE_ANY;
            case 1004 -> m.sendFocus = true;
            case 1006 -> m.mouseEncoding = Modes.ENC_SGR;
            case 1016 -> m.mouseEncoding = Modes.ENC_SGR_PIXELS;
            case 25 -> t.cursorHidden = false;
            case 1048 -> t.saveCursor();
            case 1049 -> {
                t.saveCursor();
                t.activateAlt();
            }
            case 47, 1047 -> t.activateAlt();
            case 2004 -> m.bracketedPaste = true;
            case 2026 -> m.synchronizedOutput = true;
            default -> {
                // 1005 and 1015 mouse encodings are not supported by xterm.js
            }
        }
    }

    static void reset(Emulator t, int mode) {
        Modes m = t.modes;
        switch (mode) {
            case 1 -> m.applicationCursorKeys = false;
            case 6 -> {
                m.origin = false;
                t.setCursor(0, 0);
            }
            case 7 -> m.wraparound = false;
            case 12 -> t.cursorBlinkOption = false;
            case 45 -> m.reverseWraparound = false;
            case 66 -> m.applicationKeypad = false;
            case 9, 1000, 1002, 1003 -> m.mouseProtocol = Modes.MOUSE_NONE;
            case 1004 -> m.sendFocus = false;
            case 1006, 1016 -> m.mouseEncoding = Modes.ENC_DEFAULT;
            case 25 -> t.cursorHidden = true;
            case 1048 -> t.restoreCursor();
            case 1049, 47, 1047 -> {
                t.activateNormal();
                if (mode == 1049) {
                    t.restoreCursor();
                }
            }
            case 2004 -> m.bracketedPaste = false;
            case 2026 -> m.synchronizedOutput = false;
            default -> {
            }
        }
    }
}
