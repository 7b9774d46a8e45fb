package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonText} against Jackson with its defaults (the parser the verbs used before, and the one
 * the daemon writes with): on generated JSON and on the same texts with characters deleted, inserted
 * or repeated, both refuse, or both read the same value. Seeded, so a failure names its text.
 */
class JsonTextTest {
    private static final ObjectMapper JACKSON = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    private static final String SIGNIFICANT = "{}[],:\"\\ -+0123456789.eEtrufalsn/u\u0001\u001f";

    @Test
    void acceptsAndRefusesWhatJacksonDoesAndReadsTheSameValues() {
        Random random = new Random(20261127);
        int accepted = 0;
        int refused = 0;
        for (int n = 0; n < 20_000; n++) {
            String valid = spaced(random, generate(random, 0));
            String text = n % 2 == 0 ? valid : mutated(random, valid);
            if (sameAsJackson(text)) {
                accepted++;
            } else {
                refused++;
            }
        }
        // Both kinds in earnest, so neither half of the comparison is vacuous.
        assertThat(accepted).isGreaterThan(10_000);
        assertThat(refused).isGreaterThan(3_000);
    }

    @Test
    void theEdgesOfNumbersStringsAndLiteralsReadAsJacksonReadsThem() {
        for (String text : List.of("0", "-0", "-0.0", "1e400", "-1E-400", "2147483647", "2147483648", "-2147483649",
                "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                "123456789012345678901234567890", "1.5e+3", "01", "-01", "1.", ".5", "-", "+1", "1e", "NaN", "Infinity",
                "\"\\u00e9\\uD83D\\uDE00\\/\"", "\"\\x\"", "\"\\u12g4\"", "\"lone \\uDE72\"", "\"tab\there\"", "\"\u007f\u00ff\"",
                "tru", "nulll", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{'a':1}", "[] ", " \n\t[]\r", "[]x", "", "   ",
                "{\"a\":1,\"a\":2}", "[1 2]", "{\"a\":}", "\"unterminated", "\"\\")) {
            sameAsJackson(text);
        }
    }

    @Test
    void aUnicodeEscapeTakesOnlyAsciiHexDigits() {
        // Jackson 2 reads other scripts' digits here (to a wrong character); RFC 8259 allows only ASCII hex.
        assertThatThrownBy(() -> JsonText.read("\"\\u\u0663\u0663\u0663\u0663\"")).isInstanceOf(IOException.class)
                .hasMessageContaining("bad \\u escape");
    }

    @Test
    void nestingBeyondTheLimitIsRefusedNotAStackOverflow() throws Exception {
        String deep = "[".repeat(200_000) + "]".repeat(200_000);
        assertThatThrownBy(() -> JsonText.read(deep)).isInstanceOf(IOException.class).hasMessageContaining("nested deeper");
        String withinLimit = "[".repeat(JsonText.MAX_DEPTH) + "]".repeat(JsonText.MAX_DEPTH);
        assertThat(sameAsJackson(withinLimit)).isTrue();
        String oneDeeper = "[".repeat(JsonText.MAX_DEPTH + 1) + "]".repeat(JsonText.MAX_DEPTH + 1);
        assertThatThrownBy(() -> JsonText.read(oneDeeper)).isInstanceOf(IOException.class).hasMessageContaining("nested deeper");
        // Read within a thread whose stack is half the JVM's default (1 MiB): the limit leaves a verb room to spare.
        Thread small = new Thread(null, () -> {
            try {
                JsonText.read(withinLimit);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }, "small-stack", 512 * 1024);
        List<Throwable> failed = new CopyOnWriteArrayList<>();
        small.setUncaughtExceptionHandler((t, e) -> failed.add(e));
        small.start();
        small.join();
        assertThat(failed).as("reading %d levels on a 512 KiB stack", JsonText.MAX_DEPTH).isEmpty();
    }

    @Test
    void whatItWritesReadsBackAsTheSameValue() throws Exception {
        Random random = new Random(7);
        for (int n = 0; n < 5_000; n++) {
            Object value = JsonText.read(generate(random, 0));
            String written = JsonText.write(value);
            assertThat(JACKSON.readTree(written)).as(written).isEqualTo(JACKSON.valueToTree(value));
            assertThat(JsonText.read(written)).isEqualTo(value);
        }
        Map<String, Object> odd = new LinkedHashMap<>();
        odd.put("nan", Double.NaN);
        odd.put("ctl", "\u0000\u001b\u007f");
        odd.put("tree", JsonTree.MISSING);
        assertThat(JsonText.write(odd)).isEqualTo("{\"nan\":null,\"ctl\":\"\\u0000\\u001b\u007f\",\"tree\":null}");
    }

    /** True when both read {@code text} to the same value, false when both refuse it; fails when they differ. */
    private static boolean sameAsJackson(String text) {
        JsonNode theirs;
        try {
            theirs = JACKSON.readTree(text);
            if (theirs == null || theirs.isMissingNode()) {
                theirs = null; // Jackson's "no content": a refusal
            }
        } catch (IOException e) {
            theirs = null;
        }
        Object ours;
        try {
            ours = JsonText.read(text);
        } catch (IOException e) {
            assertThat(theirs).as("Jackson accepted what JsonText refused (%s): %s", e.getMessage(), text).isNull();
            return false;
        }
        assertThat(theirs).as("JsonText accepted what Jackson refused: %s", text).isNotNull();
        assertThat(JACKSON.<JsonNode>valueToTree(ours)).as(text).isEqualTo(theirs);
        return true;
    }

    private static String generate(Random r, int depth) {
        int kind = depth >= 4 ? 2 + r.nextInt(6) : r.nextInt(8);
        return switch (kind) {
            case 0 -> {
                StringBuilder b = new StringBuilder("{");
                int n = r.nextInt(4);
                for (int k = 0; k < n; k++) {
                    b.append(k > 0 ? "," : "").append(string(r)).append(':').append(generate(r, depth + 1));
                }
                yield b.append('}').toString();
            }
            case 1 -> {
                StringBuilder b = new StringBuilder("[");
                int n = r.nextInt(4);
                for (int k = 0; k < n; k++) {
                    b.append(k > 0 ? "," : "").append(generate(r, depth + 1));
                }
                yield b.append(']').toString();
            }
            case 2 -> string(r);
            case 3 -> Long.toString(r.nextInt(3) == 0 ? r.nextLong() : r.nextInt(2000) - 1000);
            case 4 -> r.nextBoolean() ? new BigInteger(100, r).negate().toString() : Double.toString(r.nextGaussian() * 1e6);
            case 5 -> r.nextBoolean() ? "true" : "false";
            case 6 -> "null";
            default -> (r.nextBoolean() ? "-" : "") + r.nextInt(10) + "." + r.nextInt(1000) + "e" + (r.nextInt(60) - 30);
        };
    }

    private static String string(Random r) {
        StringBuilder b = new StringBuilder("\"");
        int n = r.nextInt(8);
        for (int k = 0; k < n; k++) {
            switch (r.nextInt(6)) {
                case 0 -> b.append("\\n\\\"\\\\\\/\\b\\f\\r\\t".substring(2 * r.nextInt(8)).substring(0, 2));
                // No surrogate halves: Jackson refuses a lone one in a field name and takes it in a value.
                case 1 -> b.append(String.format("\\u%04x", r.nextBoolean() ? r.nextInt(0xd800) : 0xe000 + r.nextInt(0x2000)));
                case 2 -> b.append("é😀\u007f");
                default -> b.append((char) ('a' + r.nextInt(26)));
            }
        }
        return b.append('"').toString();
    }

    private static String spaced(Random r, String json) {
        return (r.nextInt(4) == 0 ? " \n" : "") + json + (r.nextInt(4) == 0 ? "\t\r\n" : "");
    }

    private static String mutated(Random r, String text) {
        StringBuilder b = new StringBuilder(text);
        int edits = 1 + r.nextInt(2);
        for (int k = 0; k < edits; k++) {
            int at = r.nextInt(b.length() + 1);
            switch (r.nextInt(3)) {
                case 0 -> {
                    if (at < b.length()) {
                        b.deleteCharAt(at);
                    }
                }
                case 1 -> b.insert(at, SIGNIFICANT.charAt(r.nextInt(SIGNIFICANT.length())));
                default -> b.insert(at, b.substring(at, Math.min(b.length(), at + 1 + r.nextInt(3))));
            }
        }
        return b.toString();
    }
}
