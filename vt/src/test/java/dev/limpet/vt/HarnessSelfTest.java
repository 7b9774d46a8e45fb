package dev.limpet.vt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The differential harness must notice a difference when there is one. */
class HarnessSelfTest {
    @Test
    void aModelThatSawDifferentBytesIsReportedWithTheDifferingLine() throws Exception {
        Differential d = new Differential();
        Differential.Case c = d.add("self", 10, 2, 0);
        c.job.write(d.file("hello".getBytes(StandardCharsets.UTF_8)), 0, 5);
        c.model.feed("hellO".getBytes(StandardCharsets.UTF_8));
        String report = d.check();
        assertThat(report).contains("1 of 1 cases differ").contains("normal[0]");
    }
}
