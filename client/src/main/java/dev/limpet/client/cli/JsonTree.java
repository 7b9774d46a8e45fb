package dev.limpet.client.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON value as the REST verbs read and print it, parsed and written with Jackson's streaming
 * core only. Why not the protocol's codec (databind): a verb is a JVM of its own per call, and
 * databind's ~700 classes were the largest part of a verb's start-up; the REST answers are read
 * field by field and printed back, which needs no binding. Objects keep their field order.
 *
 * <p>Like a tree model's {@code path}: a missing field or index gives {@link #MISSING}, never null,
 * so a chain of lookups never throws; {@link #text()} of a missing or null value is {@code "-"}.
 */
public record JsonTree(Object value) implements Iterable<JsonTree> {
    private static final Object ABSENT = new Object();
    public static final JsonTree MISSING = new JsonTree(ABSENT);
    private static final JsonFactory FACTORY = new JsonFactory();

    /** Parses {@code text}; at most one value, nothing after it. */
    public static JsonTree parse(String text) throws IOException {
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new IOException("no JSON value");
            }
            Object v = read(p, first);
            if (p.nextToken() != null) {
                throw new IOException("text after the JSON value");
            }
            return new JsonTree(v);
        }
    }

    private static Object read(JsonParser p, JsonToken t) throws IOException {
        return switch (t) {
            case START_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
                    String name = p.currentName();
                    m.put(name, read(p, p.nextToken()));
                }
                yield m;
            }
            case START_ARRAY -> {
                List<Object> l = new ArrayList<>();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                    l.add(read(p, e));
                }
                yield l;
            }
            case VALUE_STRING -> p.getText();
            case VALUE_NUMBER_INT -> p.getNumberValue();
            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            default -> throw new IOException("unexpected JSON token " + t);
        };
    }

    /** {@code value} (maps, lists, strings, numbers, booleans, null, and {@link JsonTree}s) as JSON text. */
    public static String write(Object value) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            write(g, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static void write(JsonGenerator g, Object v) throws IOException {
        switch (v) {
            case null -> g.writeNull();
            case JsonTree t -> write(g, t.value == ABSENT ? null : t.value);
            case Map<?, ?> m -> {
                g.writeStartObject();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    g.writeFieldName(String.valueOf(e.getKey()));
                    write(g, e.getValue());
                }
                g.writeEndObject();
            }
            case Iterable<?> l -> {
                g.writeStartArray();
                for (Object e : l) {
                    write(g, e);
                }
                g.writeEndArray();
            }
            case String s -> g.writeString(s);
            case Boolean b -> g.writeBoolean(b);
            case Integer i -> g.writeNumber(i);
            case Long l -> g.writeNumber(l);
            case Double d -> g.writeNumber(d);
            case BigInteger b -> g.writeNumber(b);
            case Number n -> g.writeNumber(n.toString());
            default -> g.writeString(v.toString());
        }
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
