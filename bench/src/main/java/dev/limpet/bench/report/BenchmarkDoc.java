package dev.limpet.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code docs/benchmarks.md}: a generated section between two markers, replaced on every run, and
 * whatever people wrote outside it (the analysis below), kept as it is.
 */
public final class BenchmarkDoc {
    public static final String BEGIN = "<!-- bench:generated:begin (written by ./limpet bench; edits here are lost) -->";
    public static final String END = "<!-- bench:generated:end -->";
    static final String NEW_FILE_TAIL = """

            ## Analysis

            (Hand-written: where limpet misses a target, by how much, and the profile that shows why.)
            """;

    private BenchmarkDoc() {}

    /** The document with {@code generated} in place of the previous generated section. */
    public static String merge(String existing, String generated) {
        return merge(existing, generated, BEGIN, END, "# Benchmarks\n\n", NEW_FILE_TAIL);
    }

    /**
     * {@code existing} with {@code generated} between the markers {@code begin} and {@code end}
     * (appended when they are missing; a new document is {@code head}, the section, {@code tail}).
     */
    public static String merge(String existing, String generated, String begin, String end, String head, String tail) {
        String section = begin + "\n" + generated.strip() + "\n" + end + "\n";
        if (existing == null || existing.isBlank()) {
            return head + section + tail;
        }
        int b = existing.indexOf(begin);
        int e = existing.indexOf(end);
        if (b < 0 || e < b) {
            return existing.stripTrailing() + "\n\n" + section;
        }
        String after = existing.substring(e + end.length());
        if (after.startsWith("\n")) {
            after = after.substring(1);
        }
        return existing.substring(0, b) + section + after;
    }

    public static void write(Path doc, String generated) throws IOException {
        String existing = Files.exists(doc) ? Files.readString(doc, StandardCharsets.UTF_8) : null;
        Files.createDirectories(doc.toAbsolutePath().getParent());
        Files.writeString(doc, merge(existing, generated), StandardCharsets.UTF_8);
    }
}
