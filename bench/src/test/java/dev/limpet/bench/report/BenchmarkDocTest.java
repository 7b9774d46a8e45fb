package dev.limpet.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BenchmarkDocTest {
    @Test
    void aNewDocumentGetsTheSectionAndAnAnalysisHeading() {
        String doc = BenchmarkDoc.merge(null, "table 1");
        assertThat(doc).startsWith("# Benchmarks").contains(BenchmarkDoc.BEGIN + "\ntable 1\n" + BenchmarkDoc.END).contains("## Analysis");
    }

    @Test
    void onlyTheGeneratedSectionIsReplaced() {
        String first = BenchmarkDoc.merge(null, "table 1").replace("(Hand-written", "Mine: keep this. (Hand-written");
        String second = BenchmarkDoc.merge(first, "table 2");
        assertThat(second).contains("table 2").doesNotContain("table 1").contains("Mine: keep this.");
        assertThat(second.indexOf(BenchmarkDoc.BEGIN)).isEqualTo(first.indexOf(BenchmarkDoc.BEGIN));
    }

    @Test
    void aDocumentWithoutMarkersKeepsItsTextAndGetsTheSectionAppended() {
        String doc = BenchmarkDoc.merge("# Notes\n\nold words\n", "table");
        assertThat(doc).startsWith("# Notes\n\nold words\n").contains(BenchmarkDoc.BEGIN);
    }
}
