package dev.limpet.daemon.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QueryAnswererTest {
    final QueryAnswerer answerer = new QueryAnswerer();
    final Object a = new Object();
    final Object b = new Object();

    @Test
    void theLastWritableAttachmentAnswersUntilSomeoneTypes() {
        answerer.attached("s", a);
        answerer.attached("s", b);
        assertThat(answerer.answers("s", b)).isTrue();
        assertThat(answerer.answers("s", a)).isFalse();
        answerer.typed("s", a);
        assertThat(answerer.answers("s", a)).isTrue();
        assertThat(answerer.answers("s", b)).isFalse();
    }

    @Test
    void nobodyAnswersForAnAttachmentThatLeftOrASessionThatIsGone() {
        answerer.typed("s", a);
        answerer.detached("s", b);
        assertThat(answerer.answers("s", a)).as("another's detach changes nothing").isTrue();
        answerer.detached("s", a);
        assertThat(answerer.answers("s", a)).isFalse();
        answerer.typed("t", b);
        answerer.forget("t");
        assertThat(answerer.answers("t", b)).isFalse();
        assertThat(answerer.answers("t", null)).as("a connection not attached never answers").isFalse();
    }
}
