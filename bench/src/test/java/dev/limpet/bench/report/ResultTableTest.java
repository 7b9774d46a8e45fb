package dev.limpet.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ResultTableTest {
    @Test
    void textColumnsAlignAndMarkdownEscapesPipes() {
        ResultTable t = new ResultTable();
        t.add(new Row("1 throughput", "90.0 MB/s", "100.0 MB/s", "0.90×", "±1% / ±2% (n=5/5)", "≥ 0.80×"));
        t.add(Row.notAvailable("5 recovery", "no worker backend", "≤ 1 s"));
        String[] lines = t.text().split("\n");
        assertThat(lines).hasSize(4);
        assertThat(lines[2].indexOf("90.0 MB/s")).isEqualTo(lines[0].indexOf("limpet"));
        assertThat(lines[3]).contains("n/a: no worker backend");
        t.add(new Row("a|b", "x", "y", "—", "—", "—"));
        assertThat(t.markdown()).contains("| a\\|b |").startsWith("| figure | limpet |");
    }
}
