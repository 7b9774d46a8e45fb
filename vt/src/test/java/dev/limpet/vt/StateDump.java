package dev.limpet.vt;

import java.util.ArrayList;
import java.util.List;

/** The complete state of a model in the canonical text form that oracle.js prints for xterm.js. */
final class StateDump {
    private StateDump() {
    }

    static String of(ScreenModel model) {
        Emulator t = model.emu;
        Modes m = t.modes;
        List<String> out = new ArrayList<>();
        out.add("size=" + t.cols + "x" + t.rows + " alt=" + t.isAlt());
        out.add("title=" + json(t.title) + " icon=" + json(t.iconName));
        out.add("cursorHidden=" + t.cursorHidden + " style=" + m.cursorStyle + " blink=" + m.cursorBlink
                + " blinkOption=" + t.cursorBlinkOption);
        out.add("modes insert=" + m.insert + " appCursor=" + m.applicationCursorKeys + " appKeypad="
                + m.applicationKeypad + " paste=" + m.bracketedPaste + " origin=" + m.origin
                + " reverseWrap=" + m.reverseWraparound + " focus=" + m.sendFocus + " sync="
                + m.synchronizedOutput + " wrap=" + m.wraparound + " mouse=" + m.mouseProtocol + " enc="
                + m.mouseEncoding + " convertEol=" + t.convertEol);
        out.add("charset glevel=" + t.glevel + " active=" + sig(t.charset) + " g=" + sig(t.gsets[0]) + " | "
                + sig(t.gsets[1]) + " | " + sig(t.gsets[2]) + " | " + sig(t.gsets[3]));
        int penExt = (t.pen.bg & Attr.HAS_EXTENDED) != 0 ? Attr.effectiveExt(t.pen.extWord()) : 0;
        out.add("pen=" + t.pen.fg + ":" + t.pen.bg + ":" + penExt);
        buffer(out, "normal", t.normal);
        buffer(out, "alt", t.alt);
        return String.join("\n", out);
    }

    private static void buffer(List<String> out, String name, ScreenBuffer b) {
        out.add(name + " x=" + b.x + " y=" + b.y + " ybase=" + b.ybase + " lines=" + b.lines.length() + " max="
                + b.lines.maxLength() + " region=" + b.scrollTop + "," + b.scrollBottom + " saved=" + b.savedX + ","
                + Math.max(b.savedY - b.ybase, 0) + "," + b.savedFg + "," + b.savedBg + "," + sig(b.savedCharset));
        StringBuilder tabs = new StringBuilder();
        for (int i = b.tabs.nextSetBit(0); i >= 0; i = b.tabs.nextSetBit(i + 1)) {
            tabs.append(tabs.isEmpty() ? "" : " ").append(i);
        }
        out.add(name + " tabs=" + tabs);
        for (int i = 0; i < b.lines.length(); i++) {
            out.add(name + "[" + i + "] " + line(b.lines.get(i)));
        }
    }

    static String line(Line line) {
        StringBuilder sb = new StringBuilder();
        sb.append(line.wrapped ? "W " : "- ").append(line.length).append(' ');
        String prev = null;
        int count = 0;
        boolean first = true;
        for (int i = 0; i < line.length; i++) {
            String s = cell(line, i);
            if (s.equals(prev)) {
                count++;
            } else {
                if (prev != null) {
                    sb.append(first ? "" : ",").append(prev).append(count > 1 ? "*" + count : "");
                    first = false;
                }
                prev = s;
                count = 1;
            }
        }
        if (prev != null) {
            sb.append(first ? "" : ",").append(prev).append(count > 1 ? "*" + count : "");
        }
        return sb.toString();
    }

    private static String cell(Line line, int i) {
        int content = line.content(i);
        int bg = line.bg(i);
        int ext = (bg & Attr.HAS_EXTENDED) != 0 ? Attr.effectiveExt(line.extWord(i)) : 0;
        String c;
        if ((content & Attr.IS_COMBINED) != 0) {
            c = json(line.combined(i)) + "w" + (content >>> Attr.WIDTH_SHIFT);
        } else {
            c = Long.toString(content & 0xFFFFFFFFL);
        }
        return c + ":" + line.fg(i) + ":" + bg + ":" + ext;
    }

    static String sig(int[] map) {
        if (map == null) {
            return "B";
        }
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < 128; k++) {
            if (map[k] != 0) {
                sb.append((char) k).append((char) map[k]);
            }
        }
        return sb.toString();
    }

    /** JSON string literal as JavaScript's JSON.stringify writes it. */
    static String json(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (ch < 0x20 || Character.isSurrogate(ch) && !validSurrogate(s, i)) {
                        sb.append(String.format("\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private static boolean validSurrogate(String s, int i) {
        char ch = s.charAt(i);
        if (Character.isHighSurrogate(ch)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }
}
