package dev.limpet.daemon.backend.tmux;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads tmux control mode's lines into {@link ControlEvent}s. Stateful only across a command
 * reply ({@code %begin} … {@code %end}); otherwise one line is one event. Pure: fed bytes, no I/O.
 *
 * <p>{@code %output} data is escaped by tmux: every byte below space and the backslash as
 * {@code \ooo} (three octal digits); other bytes, UTF-8 included, as they are.
 */
final class ControlLines {
    private List<String> reply;
    private boolean replyOurs;

    /** Parses one line (without its {@code \n}). Null while a reply is still being read. */
    ControlEvent parse(byte[] line, int len) {
        if (reply != null) {
            String text = new String(line, 0, len, StandardCharsets.UTF_8);
            if (text.startsWith("%end ") || text.startsWith("%error ")) {
                ControlEvent.Reply r = new ControlEvent.Reply(text.startsWith("%end "), replyOurs, reply);
                reply = null;
                return r;
            }
            reply.add(text);
            return null;
        }
        if (startsWith(line, len, "%output ")) {
            int paneEnd = indexOf(line, len, (byte) ' ', 8);
            if (paneEnd < 0) {
                return new ControlEvent.Other(new String(line, 0, len, StandardCharsets.UTF_8));
            }
            return new ControlEvent.Output(ascii(line, 8, paneEnd), unescape(line, paneEnd + 1, len));
        }
        if (startsWith(line, len, "%extended-output ")) {
            int paneEnd = indexOf(line, len, (byte) ' ', 17);
            int colon = indexOfColon(line, len, paneEnd);
            if (paneEnd < 0 || colon < 0) {
                return new ControlEvent.Other(new String(line, 0, len, StandardCharsets.UTF_8));
            }
            return new ControlEvent.Output(ascii(line, 17, paneEnd), unescape(line, Math.min(colon + 2, len), len));
        }
        String text = new String(line, 0, len, StandardCharsets.UTF_8);
        if (text.startsWith("%begin ")) {
            reply = new ArrayList<>();
            String[] f = text.split(" ");
            replyOurs = f.length >= 4 && !f[3].equals("0");
            return null;
        }
        if (text.startsWith("%pause ")) {
            return new ControlEvent.Paused(text.substring(7).strip());
        }
        if (text.startsWith("%continue ")) {
            return new ControlEvent.Continued(text.substring(10).strip());
        }
        if (text.startsWith("%subscription-changed ")) {
            String[] f = text.split(" ", 7);
            int colon = text.indexOf(" : ");
            if (f.length >= 6 && colon >= 0) {
                return new ControlEvent.Subscription(f[1], f[5], text.substring(colon + 3));
            }
        }
        if (text.equals("%exit") || text.startsWith("%exit ")) {
            return new ControlEvent.Exit(text.length() > 6 ? text.substring(6) : "");
        }
        return new ControlEvent.Other(text);
    }

    /** The separator of {@code %extended-output %p age … : data}: the first " : " after the pane. */
    private static int indexOfColon(byte[] line, int len, int from) {
        for (int i = Math.max(from, 0); i + 1 < len; i++) {
            if (line[i] == ' ' && line[i + 1] == ':' && (i + 2 == len || line[i + 2] == ' ')) {
                return i + 1;
            }
        }
        return -1;
    }

    static byte[] unescape(byte[] line, int from, int to) {
        byte[] out = new byte[to - from];
        int n = 0;
        for (int i = from; i < to; i++) {
            byte b = line[i];
            if (b == '\\' && i + 4 <= to && isOctal(line, i + 1, i + 4)) {
                out[n++] = (byte) (((line[i + 1] - '0') << 6) | ((line[i + 2] - '0') << 3) | (line[i + 3] - '0'));
                i += 3;
            } else {
                out[n++] = b;
            }
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    private static boolean isOctal(byte[] line, int from, int to) {
        if (to - from != 3) {
            return false;
        }
        for (int i = from; i < to; i++) {
            if (line[i] < '0' || line[i] > '7') {
                return false;
            }
        }
        return true;
    }

    private static boolean startsWith(byte[] line, int len, String prefix) {
        if (len < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (line[i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(byte[] line, int len, byte b, int from) {
        for (int i = from; i < len; i++) {
            if (line[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static String ascii(byte[] line, int from, int to) {
        return new String(line, from, to - from, StandardCharsets.US_ASCII);
    }
}
