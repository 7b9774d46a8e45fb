package dev.limpet.client.cli;

import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON value as the REST verbs read and print it, parsed and written by {@link JsonText}. Why not
 * the protocol's codec (Jackson): a verb is a JVM of its own per call, and Jackson's start-up
 * (databind's ~700 classes, and the streaming parser's {@code BigDecimal} constants) was the largest
 * part of a verb's; the REST answers are read field by field and printed back, which needs no
 * binding. Objects keep their field order.
 *
 * <p>Like a tree model's {@code path}: a missing field or index gives {@link #MISSING}, never null,
 * so a chain of lookups never throws; {@link #text()} of a missing or null value is {@code "-"}.
 */
public record JsonTree(Object value) implements Iterable<JsonTree> {
    private static final Object ABSENT = new Object();
    public static final JsonTree MISSING = new JsonTree(ABSENT);

    /** Parses {@code text}; at most one value, nothing after it. */
    public static JsonTree parse(String text) throws IOException {
        return new JsonTree(JsonText.read(text));
    }

    /** {@code value} (maps, lists, strings, numbers, booleans, null, and {@link JsonTree}s) as JSON text. */
    public static String write(Object value) {
        return JsonText.write(value);
    }

    /** A field of an object; {@link #MISSING} for anything else or no such field. */
    public JsonTree path(String field) {
        return value instanceof Map<?, ?> m && m.containsKey(field) ? new JsonTree(m.get(field)) : MISSING;
    }

    public boolean isMissing() {
        return value == ABSENT;
    }

    public boolean isNull() {
        return value == null;
    }

    public boolean isObject() {
        return value instanceof Map;
    }

    public boolean isArray() {
        return value instanceof List;
    }

    public boolean isNumber() {
        return value instanceof Number;
    }

    public boolean isText() {
        return value instanceof String;
    }

    public boolean isEmpty() {
        return value instanceof List<?> l ? l.isEmpty() : !(value instanceof Map<?, ?> m) || m.isEmpty();
    }

    /** The value as text ({@code "-"} when missing or null): a string as it is, anything else as its JSON. */
    public String text() {
        return isMissing() || isNull() ? "-" : value instanceof String s ? s : write(value);
    }

    /** The value as text, or {@code fallback} when it is missing or null. */
    public String text(String fallback) {
        return isMissing() || isNull() ? fallback : text();
    }

    public long asLong() {
        return value instanceof Number n ? n.longValue() : 0;
    }

    public boolean asBoolean() {
        return Boolean.TRUE.equals(value);
    }

    /** The elements of an array (nothing for anything else). */
    @Override
    public Iterator<JsonTree> iterator() {
        List<?> l = value instanceof List<?> x ? x : Collections.emptyList();
        return l.stream().map(JsonTree::new).iterator();
    }

    /** An object's fields in order, as a map a verb may add to before printing it (a copy). */
    public Map<String, Object> fields() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (value instanceof Map<?, ?> src) {
            src.forEach((k, v) -> m.put(String.valueOf(k), v));
        }
        return m;
    }
}
