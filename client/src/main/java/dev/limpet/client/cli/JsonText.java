package dev.limpet.client.cli;

import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON text (RFC 8259) to Java values and back, for the verbs: objects as insertion-ordered maps,
 * arrays as lists, integers as {@code Integer}, {@code Long} or {@code BigInteger} (the smallest that
 * holds them), other numbers as {@code Double}, and strings, booleans and null as themselves.
 *
 * <p>Why not Jackson's streaming core, which the verbs used before: every Jackson parser extends
 * {@code ParserMinimalBase}, whose constants initialise {@code java.math.BigDecimal}, and JDK 25's
 * {@code BigDecimal} computes 5^(2^16) when it initialises: about a quarter of a verb's own CPU,
 * paid by every verb for reading a few hundred bytes. This reader never touches {@code BigDecimal}.
 * It is strict as Jackson's defaults are (no comments, trailing commas, leading zeros, NaN, raw
 * control characters in strings, or text after the value). It reads nested values by recursion, two
 * frames a level, so it refuses nesting deeper than {@link #MAX_DEPTH}: hostile input (a hook's
 * payload) gets an {@link IOException}, never a stack overflow. (Jackson, whose parser keeps no
 * frame per level, allows 1,000; at that depth this reader overflowed a 1 MiB stack once, cold.)
 * {@code JsonTextTest} checks it against Jackson on generated and mutated texts.
 *
 * <p>Not thread-safe per instance; the static methods are.
 */
final class JsonText {
    /** Far below what a thread's stack holds, far above what the daemon's answers and agents' hooks nest. */
    static final int MAX_DEPTH = 200;
    /** Jackson's default limit on a number's length in characters. */
    static final int MAX_NUMBER_LENGTH = 1000;

    private final String text;
    private int at;

    private JsonText(String text) {
        this.text = text;
    }

    /** The one value {@code text} holds (whitespace around it allowed), or why it holds none. */
    static Object read(String text) throws IOException {
        JsonText r = new JsonText(text);
        r.skipWhitespace();
        if (r.at == text.length()) {
            throw new IOException("no JSON value");
        }
        Object value = r.value(0);
        r.skipWhitespace();
        if (r.at != text.length()) {
            throw r.error("text after the JSON value");
        }
        return value;
    }

    private Object value(int depth) throws IOException {
        char c = text.charAt(at);
        return switch (c) {
            case '{' -> object(depth + 1);
            case '[' -> array(depth + 1);
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    yield number();
                }
                throw error("unexpected character");
            }
        };
    }

    private Map<String, Object> object(int depth) throws IOException {
        nested(depth);
        at++;
        Map<String, Object> fields = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            at++;
            return fields;
        }
        while (true) {
            if (peek() != '"') {
                throw error("expected a field name");
            }
            String name = string();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            requireMore();
            fields.put(name, value(depth));
            if (closedAfterElement('}')) {
                return fields;
            }
        }
    }

    private List<Object> array(int depth) throws IOException {
        nested(depth);
        at++;
        List<Object> elements = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            at++;
            return elements;
        }
        while (true) {
            requireMore();
            elements.add(value(depth));
            if (closedAfterElement(']')) {
                return elements;
            }
        }
    }

    /** After an element: true at {@code close} (consumed), false after a comma; anything else is refused. */
    private boolean closedAfterElement(char close) throws IOException {
        skipWhitespace();
        char c = at < text.length() ? text.charAt(at++) : '\0';
        if (c == close) {
            return true;
        }
        if (c != ',') {
            throw error("expected ',' or '" + close + "'");
        }
        skipWhitespace();
        return false;
    }

    private String string() throws IOException {
        at++; // the opening quote
        StringBuilder out = null;
        int run = at;
        while (true) {
            if (at >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(at);
            if (c == '"') {
                String s = out == null ? text.substring(run, at) : out.append(text, run, at).toString();
                at++;
                return s;
            }
            if (c < 0x20) {
                throw error("unescaped control character in a string");
            }
            if (c != '\\') {
                at++;
                continue;
            }
            if (out == null) {
                out = new StringBuilder();
            }
            out.append(text, run, at);
            at++;
            out.append(escaped(next("unterminated escape")));
            run = at;
        }
    }

    private char escaped(char c) throws IOException {
        return switch (c) {
            case '"', '\\', '/' -> c;
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'u' -> {
                if (at + 4 > text.length()) {
                    throw error("short \\u escape");
                }
                int code = 0;
                for (int k = 0; k < 4; k++) {
                    int digit = hexDigit(text.charAt(at + k));
                    if (digit < 0) {
                        throw error("bad \\u escape");
                    }
                    code = code * 16 + digit;
                }
                at += 4;
                yield (char) code;
            }
            default -> throw error("bad escape");
        };
    }

    /** An ASCII hex digit's value, else -1 ({@code Character.digit} would take other scripts' digits too). */
    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }

    private Object number() throws IOException {
        int start = at;
        if (peek() == '-') {
            at++;
        }
        if (peek() == '0') {
            at++;
            if (isDigit(peek())) {
                throw error("leading zero in a number");
            }
        } else if (!digits()) {
            throw error("expected a digit");
        }
        boolean integral = true;
        if (peek() == '.') {
            at++;
            integral = false;
            if (!digits()) {
                throw error("expected a digit after '.'");
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            at++;
            integral = false;
            if (peek() == '+' || peek() == '-') {
                at++;
            }
            if (!digits()) {
                throw error("expected a digit in the exponent");
            }
        }
        if (at - start > MAX_NUMBER_LENGTH) {
            throw error("number longer than " + MAX_NUMBER_LENGTH + " characters");
        }
        String n = text.substring(start, at);
        if (!integral) {
            return Double.parseDouble(n);
        }
        if (n.length() <= 18) {
            long v = Long.parseLong(n);
            return v == (int) v ? (Object) (int) v : (Object) v;
        }
        BigInteger big = new BigInteger(n);
        return big.bitLength() < 64 ? (Object) big.longValue() : big;
    }

    /** Consumes one or more digits; false when there was none. */
    private boolean digits() {
        int start = at;
        while (isDigit(peek())) {
            at++;
        }
        return at > start;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private Object literal(String word, Object value) throws IOException {
        if (!text.startsWith(word, at)) {
            throw error("expected " + word);
        }
        at += word.length();
        return value;
    }

    private void nested(int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw error("nested deeper than " + MAX_DEPTH);
        }
    }

    private void skipWhitespace() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    /** The next character, or NUL at the end (never valid where it is looked for). */
    private char peek() {
        return at < text.length() ? text.charAt(at) : '\0';
    }

    private char next(String atEnd) throws IOException {
        if (at >= text.length()) {
            throw error(atEnd);
        }
        return text.charAt(at++);
    }

    private void expect(char c) throws IOException {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        at++;
    }

    private void requireMore() throws IOException {
        if (at >= text.length()) {
            throw error("unexpected end of the text");
        }
    }

    private IOException error(String what) {
        return new IOException(what + " at offset " + at);
    }

    /**
     * {@code value} as JSON text: maps (keys by {@code String.valueOf}), iterables, strings, booleans,
     * null, numbers (a non-finite double as null, which JSON cannot say otherwise) and, for anything
     * else, its {@code toString} as a string. A {@link JsonTree} is written as the value it holds.
     */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value);
        return out.toString();
    }

    private static void write(StringBuilder out, Object v) {
        switch (v) {
            case null -> out.append("null");
            case JsonTree t -> write(out, t.isMissing() ? null : t.value());
            case Map<?, ?> m -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    quote(out, String.valueOf(e.getKey()));
                    out.append(':');
                    write(out, e.getValue());
                }
                out.append('}');
            }
            case Iterable<?> l -> {
                out.append('[');
                boolean first = true;
                for (Object e : l) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    write(out, e);
                }
                out.append(']');
            }
            case String s -> quote(out, s);
            case Boolean b -> out.append(b);
            case Double d -> out.append(Double.isFinite(d) ? d.toString() : "null");
            case Float f -> out.append(Float.isFinite(f) ? f.toString() : "null");
            case Number n -> out.append(n);
            default -> quote(out, v.toString());
        }
    }

    private static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xf, 16));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
