package dev.limpet.daemon.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ActiveViewersTest {
    final Set<Object> closed = new HashSet<>();
    final ActiveViewers<Object> viewers = new ActiveViewers<>(closed::contains);
    final Object a = new Object();
    final Object b = new Object();

    @Test
    void anAttachmentThatOnlyOpenedTheSessionNeverHoldsItsSize() {
        viewers.attached("s", a);
        viewers.attached("s", b);
        assertThat(viewers.holdsSize("s", a)).isFalse();
        assertThat(viewers.holdsSize("s", b)).isFalse();
    }

    @Test
    void theAttachmentThatTypedOrTookTheSizeLastHoldsIt() {
        viewers.attached("s", a);
        viewers.attached("s", b);
        viewers.used("s", a);
        viewers.used("s", a);
        assertThat(viewers.holdsSize("s", a)).isTrue();
        viewers.used("s", b);
        assertThat(viewers.holdsSize("s", a)).isFalse();
        assertThat(viewers.holdsSize("s", b)).isTrue();
        viewers.detached("s", b);
        assertThat(viewers.holdsSize("s", a)).as("nobody holds it after the holder left").isFalse();
    }

    @Test
    void theLastWritableAttachmentAnswersQueriesUntilSomeoneTypesThenTheTypist() {
        viewers.attached("s", a);
        viewers.attached("s", b);
        assertThat(viewers.answers("s", b)).isTrue();
        assertThat(viewers.answers("s", a)).isFalse();
        viewers.used("s", a);
        assertThat(viewers.answers("s", a)).isTrue();
        assertThat(viewers.answers("s", b)).isFalse();
        viewers.detached("s", a);
        assertThat(viewers.answers("s", b)).as("the typist left: the last attached answers again").isTrue();
    }

    @Test
    void anAttachmentWhoseConnectionClosedNeitherAnswersNorHoldsTheSize() {
        viewers.attached("s", a);
        viewers.used("s", a);
        closed.add(a);
        assertThat(viewers.holdsSize("s", a)).isFalse();
        assertThat(viewers.answers("s", a)).isFalse();
        viewers.used("t", b);
        viewers.forget("t");
        assertThat(viewers.answers("t", b)).isFalse();
        assertThat(viewers.answers("t", null)).as("a connection not attached never answers").isFalse();
    }
}
