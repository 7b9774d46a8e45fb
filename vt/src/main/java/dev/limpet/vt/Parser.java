package dev.limpet.vt;

import java.util.Arrays;

/**
 * The DEC/ANSI escape sequence parser of Paul Williams (vt100.net/emu/dec_ansi_parser) as
 * refined by xterm.js: it consumes UTF-32 code points, keeps its state across calls (so chunks may
 * end anywhere) and reports actions to a {@link ParserHandler}. Code points at or above U+00A0
 * count as printable. DCS and SOS/PM/APC strings are consumed and ignored.
 */
final class Parser {
    static final int GROUND = 0, ESCAPE = 1, ESCAPE_INTERMEDIATE = 2, CSI_ENTRY = 3, CSI_PARAM = 4,
            CSI_INTERMEDIATE = 5, CSI_IGNORE = 6, SOS_PM_APC_STRING = 7, OSC_STRING = 8, DCS_ENTRY = 9,
            DCS_PARAM = 10, DCS_IGNORE = 11, DCS_INTERMEDIATE = 12, DCS_PASSTHROUGH = 13;
    private static final int IGNORE = 0, ERROR = 1, PRINT = 2, EXECUTE = 3, OSC_START = 4, OSC_PUT = 5,
            OSC_END = 6, CSI_DISPATCH = 7, PARAM = 8, COLLECT = 9, ESC_DISPATCH = 10, CLEAR = 11,
            DCS_HOOK = 12, DCS_PUT = 13, DCS_UNHOOK = 14;
    private static final int NON_ASCII = 0xA0;
    private static final int OSC_LIMIT = 10_000_000;
    private static final byte[] TABLE = buildTable();

    private final ParserHandler handler;
    private final Params params = new Params();
    int state = GROUND;
    private int collect;
    /** Unicode join state of the last printed character (0 after any control or sequence). */
    int joinState;
    /** The last code point parsed was printed: a print that follows continues the same run. */
    boolean printRunOpen;

    // OSC sub-parser: 0 start, 1 id, 2 payload, 3 abort
    private int oscState;
    private long oscId = -1;
    private final StringBuilder oscData = new StringBuilder();
    private boolean oscOverflow;

    Parser(ParserHandler handler) {
        this.handler = handler;
        params.addParam(0);
    }

    void reset() {
        state = GROUND;
        oscState = 0;
        oscId = -1;
        oscData.setLength(0);
        clear();
        joinState = 0;
        printRunOpen = false;
    }

    private void clear() {
        params.reset();
        params.addParam(0);
        collect = 0;
    }

    void parse(int[] data, int length) {
        if (length > 0) {
            printRunOpen = false;
        }
        for (int i = 0; i < length; ++i) {
            int code = data[i];
            int transition = TABLE[state << 8 | (code < 0xA0 ? code : NON_ASCII)] & 0xFF;
            switch (transition >> 4) {
                case PRINT -> {
                    int j = i + 1;
                    while (j < length && ((code = data[j]) >= 0x20 && code < 0x7F || code >= NON_ASCII)) {
                        j++;
                    }
                    handler.print(data, i, j);
                    printRunOpen = j == length;
                    i = j - 1;
                }
                case EXECUTE -> {
                    handler.execute(code);
                    joinState = 0;
                }
                case CSI_DISPATCH -> {
                    handler.csi(collect << 8 | code, params);
                    joinState = 0;
                }
                case PARAM -> {
                    do {
                        if (code == 0x3B) {
                            params.addParam(0);
                        } else if (code == 0x3A) {
                            params.addSubParam(-1);
                        } else {
                            params.addDigit(code - 48);
                        }
                    } while (++i < length && (code = data[i]) > 0x2F && code < 0x3C);
                    i--;
                }
                case COLLECT -> collect = collect << 8 | code;
                case ESC_DISPATCH -> {
                    handler.esc(collect << 8 | code);
                    joinState = 0;
                }
                case CLEAR -> clear();
                case DCS_UNHOOK -> {
                    if (code == 0x1B) {
                        transition |= ESCAPE;
                    }
                    clear();
                    joinState = 0;
                }
                case OSC_START -> {
                    oscState = 1;
                    oscId = -1;
                    oscData.setLength(0);
                    oscOverflow = false;
                }
                case OSC_PUT -> {
                    int j = i + 1;
                    while (j < length && ((code = data[j]) >= 0x20 && code < 0x80 || code >= NON_ASCII)) {
                        j++;
                    }
                    oscPut(data, i, j);
                    i = j - 1;
                }
                case OSC_END -> {
                    oscEnd(code != 0x18 && code != 0x1A);
                    if (code == 0x1B) {
                        transition |= ESCAPE;
                    }
                    clear();
                    joinState = 0;
                }
                default -> {
                    // IGNORE, ERROR, DCS_HOOK, DCS_PUT: nothing to do
                }
            }
            state = transition & 15;
        }
    }

    private void oscPut(int[] data, int start, int end) {
        if (oscState == 1) {
            while (start < end) {
                int code = data[start++];
                if (code == 0x3B) {
                    oscState = 2;
                    break;
                }
                if (code < 0x30 || code > 0x39) {
                    oscState = 3;
                    return;
                }
                oscId = oscId == -1 ? code - 48 : Math.min(oscId * 10 + code - 48, 1L << 40);
            }
        }
        if (oscState == 2 && !oscOverflow) {
            for (int k = start; k < end; k++) {
                oscData.appendCodePoint(data[k]);
            }
            if (oscData.length() > OSC_LIMIT) {
                oscData.setLength(0);
                oscOverflow = true;
            }
        }
    }

    private void oscEnd(boolean success) {
        if (oscState == 1 || oscState == 2) {
            if (success && !oscOverflow) {
                handler.osc(oscId > Integer.MAX_VALUE ? -2 : (int) oscId, oscData.toString());
            }
        }
        oscState = 0;
        oscId = -1;
        oscData.setLength(0);
    }

    private static byte[] buildTable() {
        byte[] t = new byte[14 * 256];
        Arrays.fill(t, (byte) (ERROR << 4 | GROUND));
        T tb = new T(t);
        int[] printables = range(0x20, 0x7F);
        int[] executables = concat(range(0x00, 0x18), new int[] {0x19}, range(0x1C, 0x20));
        tb.many(printables, GROUND, PRINT, GROUND);
        for (int s = GROUND; s <= DCS_PASSTHROUGH; s++) {
            tb.many(new int[] {0x18, 0x1A, 0x99, 0x9A}, s, EXECUTE, GROUND);
            tb.many(range(0x80, 0x90), s, EXECUTE, GROUND);
            tb.many(range(0x90, 0x98), s, EXECUTE, GROUND);
            tb.one(0x9C, s, IGNORE, GROUND);
            tb.one(0x1B, s, CLEAR, ESCAPE);
            tb.one(0x9D, s, OSC_START, OSC_STRING);
            tb.many(new int[] {0x98, 0x9E, 0x9F}, s, IGNORE, SOS_PM_APC_STRING);
            tb.one(0x9B, s, CLEAR, CSI_ENTRY);
            tb.one(0x90, s, CLEAR, DCS_ENTRY);
        }
        tb.many(executables, GROUND, EXECUTE, GROUND);
        tb.many(executables, ESCAPE, EXECUTE, ESCAPE);
        tb.one(0x7F, ESCAPE, IGNORE, ESCAPE);
        tb.many(executables, OSC_STRING, IGNORE, OSC_STRING);
        tb.many(executables, CSI_ENTRY, EXECUTE, CSI_ENTRY);
        tb.one(0x7F, CSI_ENTRY, IGNORE, CSI_ENTRY);
        tb.many(executables, CSI_PARAM, EXECUTE, CSI_PARAM);
        tb.one(0x7F, CSI_PARAM, IGNORE, CSI_PARAM);
        tb.many(executables, CSI_IGNORE, EXECUTE, CSI_IGNORE);
        tb.many(executables, CSI_INTERMEDIATE, EXECUTE, CSI_INTERMEDIATE);
        tb.one(0x7F, CSI_INTERMEDIATE, IGNORE, CSI_INTERMEDIATE);
        tb.many(executables, ESCAPE_INTERMEDIATE, EXECUTE, ESCAPE_INTERMEDIATE);
        tb.one(0x7F, ESCAPE_INTERMEDIATE, IGNORE, ESCAPE_INTERMEDIATE);
        // OSC
        tb.one(0x5D, ESCAPE, OSC_START, OSC_STRING);
        tb.many(printables, OSC_STRING, OSC_PUT, OSC_STRING);
        tb.one(0x7F, OSC_STRING, OSC_PUT, OSC_STRING);
        tb.many(new int[] {0x9C, 0x1B, 0x18, 0x1A, 0x07}, OSC_STRING, OSC_END, GROUND);
        tb.many(range(0x1C, 0x20), OSC_STRING, IGNORE, OSC_STRING);
        // SOS, PM, APC
        tb.many(new int[] {0x58, 0x5E, 0x5F}, ESCAPE, IGNORE, SOS_PM_APC_STRING);
        tb.many(printables, SOS_PM_APC_STRING, IGNORE, SOS_PM_APC_STRING);
        tb.many(executables, SOS_PM_APC_STRING, IGNORE, SOS_PM_APC_STRING);
        tb.one(0x9C, SOS_PM_APC_STRING, IGNORE, GROUND);
        tb.one(0x7F, SOS_PM_APC_STRING, IGNORE, SOS_PM_APC_STRING);
        // CSI
        tb.one(0x5B, ESCAPE, CLEAR, CSI_ENTRY);
        tb.many(range(0x40, 0x7F), CSI_ENTRY, CSI_DISPATCH, GROUND);
        tb.many(range(0x30, 0x3C), CSI_ENTRY, PARAM, CSI_PARAM);
        tb.many(new int[] {0x3C, 0x3D, 0x3E, 0x3F}, CSI_ENTRY, COLLECT, CSI_PARAM);
        tb.many(range(0x30, 0x3C), CSI_PARAM, PARAM, CSI_PARAM);
        tb.many(range(0x40, 0x7F), CSI_PARAM, CSI_DISPATCH, GROUND);
        tb.many(new int[] {0x3C, 0x3D, 0x3E, 0x3F}, CSI_PARAM, IGNORE, CSI_IGNORE);
        tb.many(range(0x20, 0x40), CSI_IGNORE, IGNORE, CSI_IGNORE);
        tb.one(0x7F, CSI_IGNORE, IGNORE, CSI_IGNORE);
        tb.many(range(0x40, 0x7F), CSI_IGNORE, IGNORE, GROUND);
        tb.many(range(0x20, 0x30), CSI_ENTRY, COLLECT, CSI_INTERMEDIATE);
        tb.many(range(0x20, 0x30), CSI_INTERMEDIATE, COLLECT, CSI_INTERMEDIATE);
        tb.many(range(0x30, 0x40), CSI_INTERMEDIATE, IGNORE, CSI_IGNORE);
        tb.many(range(0x40, 0x7F), CSI_INTERMEDIATE, CSI_DISPATCH, GROUND);
        tb.many(range(0x20, 0x30), CSI_PARAM, COLLECT, CSI_INTERMEDIATE);
        // ESC intermediates and finals
        tb.many(range(0x20, 0x30), ESCAPE, COLLECT, ESCAPE_INTERMEDIATE);
        tb.many(range(0x20, 0x30), ESCAPE_INTERMEDIATE, COLLECT, ESCAPE_INTERMEDIATE);
        tb.many(range(0x30, 0x7F), ESCAPE_INTERMEDIATE, ESC_DISPATCH, GROUND);
        tb.many(range(0x30, 0x50), ESCAPE, ESC_DISPATCH, GROUND);
        tb.many(range(0x51, 0x58), ESCAPE, ESC_DISPATCH, GROUND);
        tb.many(new int[] {0x59, 0x5A, 0x5C}, ESCAPE, ESC_DISPATCH, GROUND);
        tb.many(range(0x60, 0x7F), ESCAPE, ESC_DISPATCH, GROUND);
        // DCS
        tb.one(0x50, ESCAPE, CLEAR, DCS_ENTRY);
        tb.many(executables, DCS_ENTRY, IGNORE, DCS_ENTRY);
        tb.one(0x7F, DCS_ENTRY, IGNORE, DCS_ENTRY);
        tb.many(range(0x1C, 0x20), DCS_ENTRY, IGNORE, DCS_ENTRY);
        tb.many(range(0x20, 0x30), DCS_ENTRY, COLLECT, DCS_INTERMEDIATE);
        tb.many(range(0x30, 0x3C), DCS_ENTRY, PARAM, DCS_PARAM);
        tb.many(new int[] {0x3C, 0x3D, 0x3E, 0x3F}, DCS_ENTRY, COLLECT, DCS_PARAM);
        tb.many(executables, DCS_IGNORE, IGNORE, DCS_IGNORE);
        tb.many(range(0x20, 0x80), DCS_IGNORE, IGNORE, DCS_IGNORE);
        tb.many(range(0x1C, 0x20), DCS_IGNORE, IGNORE, DCS_IGNORE);
        tb.many(executables, DCS_PARAM, IGNORE, DCS_PARAM);
        tb.one(0x7F, DCS_PARAM, IGNORE, DCS_PARAM);
        tb.many(range(0x1C, 0x20), DCS_PARAM, IGNORE, DCS_PARAM);
        tb.many(range(0x30, 0x3C), DCS_PARAM, PARAM, DCS_PARAM);
        tb.many(new int[] {0x3C, 0x3D, 0x3E, 0x3F}, DCS_PARAM, IGNORE, DCS_IGNORE);
        tb.many(range(0x20, 0x30), DCS_PARAM, COLLECT, DCS_INTERMEDIATE);
        tb.many(executables, DCS_INTERMEDIATE, IGNORE, DCS_INTERMEDIATE);
        tb.one(0x7F, DCS_INTERMEDIATE, IGNORE, DCS_INTERMEDIATE);
        tb.many(range(0x1C, 0x20), DCS_INTERMEDIATE, IGNORE, DCS_INTERMEDIATE);
        tb.many(range(0x20, 0x30), DCS_INTERMEDIATE, COLLECT, DCS_INTERMEDIATE);
        tb.many(range(0x30, 0x40), DCS_INTERMEDIATE, IGNORE, DCS_IGNORE);
        tb.many(range(0x40, 0x7F), DCS_INTERMEDIATE, DCS_HOOK, DCS_PASSTHROUGH);
        tb.many(range(0x40, 0x7F), DCS_PARAM, DCS_HOOK, DCS_PASSTHROUGH);
        tb.many(range(0x40, 0x7F), DCS_ENTRY, DCS_HOOK, DCS_PASSTHROUGH);
        tb.many(executables, DCS_PASSTHROUGH, DCS_PUT, DCS_PASSTHROUGH);
        tb.many(printables, DCS_PASSTHROUGH, DCS_PUT, DCS_PASSTHROUGH);
        tb.one(0x7F, DCS_PASSTHROUGH, IGNORE, DCS_PASSTHROUGH);
        tb.many(new int[] {0x1B, 0x9C, 0x18, 0x1A}, DCS_PASSTHROUGH, DCS_UNHOOK, GROUND);
        // non-ASCII printables
        tb.one(NON_ASCII, GROUND, PRINT, GROUND);
        tb.one(NON_ASCII, OSC_STRING, OSC_PUT, OSC_STRING);
        tb.one(NON_ASCII, CSI_IGNORE, IGNORE, CSI_IGNORE);
        tb.one(NON_ASCII, DCS_IGNORE, IGNORE, DCS_IGNORE);
        tb.one(NON_ASCII, DCS_PASSTHROUGH, DCS_PUT, DCS_PASSTHROUGH);
        return t;
    }

    private record T(byte[] t) {
        void one(int code, int state, int action, int next) {
            t[state << 8 | code] = (byte) (action << 4 | next);
        }

        void many(int[] codes, int state, int action, int next) {
            for (int c : codes) {
                one(c, state, action, next);
            }
        }
    }

    private static int[] range(int from, int to) {
        int[] r = new int[to - from];
        for (int i = 0; i < r.length; i++) {
            r[i] = from + i;
        }
        return r;
    }

    private static int[] concat(int[]... parts) {
        return Arrays.stream(parts).flatMapToInt(Arrays::stream).toArray();
    }
}
