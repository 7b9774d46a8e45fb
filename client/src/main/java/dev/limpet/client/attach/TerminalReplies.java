package dev.limpet.client.attach;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Terminal queries in output, and terminal replies in input. Programs ask their terminal questions
 * (device attributes {@code ESC[c}, cursor position {@code ESC[6n}, colours {@code OSC 10;?},
 * {@code DECRQSS}, mode and window reports); the terminal answers on its input, which {@code limpet
 * attach} reads like keystrokes. Pure byte pattern matching; see {@link ReplyGuard} for how the two
 * are used.
 */
final class TerminalReplies {
    private static final byte ESC = 0x1b;

    private TerminalReplies() {}

    /** Whether {@code buf[off, off + len)} contains a terminal query. */
    static boolean containsQuery(byte[] buf, int off, int len) {
        return queries(buf, off, len).length > 0;
    }

    /**
     * The terminal queries in {@code buf[off, off + len)}, one after another: what {@code limpet
     * attach} passes to the person's terminal (which otherwise sees only the screen painted from
     * its own model), so that the program gets its answer. A query cut by the chunk's end is not
     * found.
     */
    static byte[] queries(byte[] buf, int off, int len) {
        ByteArrayOutputStream found = new ByteArrayOutputStream();
        int end = off + len;
        for (int i = off; i < end - 1; i++) {
            if (buf[i] != ESC) {
                continue;
            }
            int after = queryEnd(buf, i, end);
            if (after > i) {
                found.write(buf, i, after - i);
                i = after - 1;
            }
        }
        return found.toByteArray();
    }

    /** The index after the query that starts at {@code i} (an ESC), or -1 when none does. */
    private static int queryEnd(byte[] buf, int i, int end) {
        byte kind = buf[i + 1];
        if (kind == '[') {
            int j = i + 2;
            int start = j;
            while (j < end && (buf[j] >= 0x30 && buf[j] <= 0x3f)) {
                j++; // parameters and private markers (?, >, =)
            }
            boolean dollar = j < end && buf[j] == '$';
            if (dollar) {
                j++;
            }
            if (j >= end) {
                return -1;
            }
            byte f = buf[j];
            String params = new String(buf, start, j - start - (dollar ? 1 : 0), StandardCharsets.US_ASCII);
            boolean query = !dollar && f == 'c' // DA, secondary/tertiary DA
                    || !dollar && f == 'n' && (params.equals("5") || params.equals("6") || params.equals("?6")) // status, cursor
                    || dollar && f == 'p' // DECRQM
                    || !dollar && f == 't' && (params.equals("11") || params.equals("13") || params.equals("14")
                            || params.equals("16") || params.equals("18") || params.equals("19") || params.equals("20")
                            || params.equals("21")); // window reports
            return query ? j + 1 : -1;
        }
        if (kind == ']') {
            // OSC 4/10–19 with "?" asks for a colour.
            int j = i + 2;
            while (j < end && buf[j] >= '0' && buf[j] <= '9') {
                j++;
            }
            if (j + 1 < end && buf[j] == ';' && containsQuestionMark(buf, j + 1, Math.min(end, j + 16))) {
                return stringEnd(buf, j + 1, end, true);
            }
            return -1;
        }
        if (kind == 'P' && i + 3 < end && buf[i + 2] == '$' && buf[i + 3] == 'q') {
            return stringEnd(buf, i + 4, end, false); // DECRQSS
        }
        return -1;
    }

    /** The index after the string terminator (ST, or BEL for an OSC) from {@code from}, or -1. */
    private static int stringEnd(byte[] buf, int from, int end, boolean belEnds) {
        for (int j = from; j < end; j++) {
            if (belEnds && buf[j] == 7) {
                return j + 1;
            }
            if (buf[j] == ESC && j + 1 < end && buf[j + 1] == '\\') {
                return j + 2;
            }
        }
        return -1;
    }

    private static boolean containsQuestionMark(byte[] buf, int from, int to) {
        for (int i = from; i < to; i++) {
            if (buf[i] == '?') {
                return true;
            }
            if (buf[i] == ESC || buf[i] == 7) {
                return false;
            }
        }
        return false;
    }

    /**
     * Whether {@code input} is made only of terminal replies (one or more): {@code CSI ? … c} and
     * {@code CSI > … c} (device attributes), {@code CSI n ; m R} (cursor position), {@code CSI ? … $ y}
     * (mode report), {@code CSI … t} (window reports), {@code CSI ? … n} and {@code CSI 0 n} (status),
     * {@code OSC … ST/BEL} (colours) and {@code DCS … ST} (DECRQSS).
     */
    static boolean onlyReplies(byte[] input) {
        int i = 0;
        if (input.length == 0) {
            return false;
        }
        while (i < input.length) {
            int next = reply(input, i);
            if (next < 0) {
                return false;
            }
            i = next;
        }
        return true;
    }

    /** The index after the reply starting at {@code i}, or -1 when none starts there. */
    private static int reply(byte[] in, int i) {
        if (i + 2 >= in.length || in[i] != ESC) {
            return -1;
        }
        byte kind = in[i + 1];
        if (kind == '[') {
            int j = i + 2;
            boolean privateMarker = in[j] == '?' || in[j] == '>';
            while (j < in.length && (in[j] >= 0x30 && in[j] <= 0x3f)) {
                j++;
            }
            boolean dollar = j < in.length && in[j] == '$';
            if (dollar) {
                j++;
            }
            if (j >= in.length) {
                return -1;
            }
            byte f = in[j];
            boolean ok = privateMarker && f == 'c'                 // DA replies
                    || !privateMarker && !dollar && f == 'R' && j > i + 2 && containsSemicolon(in, i + 2, j) // CPR
                    || dollar && f == 'y'                          // DECRPM
                    || !dollar && f == 't' && j > i + 2            // window reports
                    || !dollar && f == 'n' && j > i + 2;           // status reports
            return ok ? j + 1 : -1;
        }
        if (kind == ']' || kind == 'P') {
            for (int j = i + 2; j < in.length; j++) {
                if (kind == ']' && in[j] == 7) {
                    return j + 1;
                }
                if (in[j] == ESC && j + 1 < in.length && in[j + 1] == '\\') {
                    return j + 2;
                }
            }
        }
        return -1;
    }

    private static boolean containsSemicolon(byte[] in, int from, int to) {
        for (int k = from; k < to; k++) {
            if (in[k] == ';') {
                return true;
            }
        }
        return false;
    }
}
