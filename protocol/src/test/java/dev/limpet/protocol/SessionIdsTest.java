package dev.limpet.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SessionIdsTest {

    @ParameterizedTest
    @ValueSource(strings = {"a", "k3x9q2", "0-abc", "a-b-c-d"})
    void acceptsLowercaseAlphanumericIds(String id) {
        assertThat(SessionIds.isValid(id)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-a", "A", "a/b", "../etc", "a.b", "a b", "a\u0000", "ä",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
    void rejectsIdsThatCouldEscapeAPathOrAreOutOfShape(String id) {
        assertThat(SessionIds.isValid(id)).isFalse();
        assertThatThrownBy(() -> SessionIds.requireValid(id))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_SESSION_ID));
    }

    @Test
    void nullIsInvalid() {
        assertThat(SessionIds.isValid(null)).isFalse();
    }

    @Test
    void generatedIdsAreValidAndDistinct() {
        var seen = new HashSet<String>();
        for (int i = 0; i < 1000; i++) {
            String id = SessionIds.generate();
            assertThat(SessionIds.isValid(id)).isTrue();
            seen.add(id);
        }
        assertThat(seen).hasSizeGreaterThan(990);
    }
}
