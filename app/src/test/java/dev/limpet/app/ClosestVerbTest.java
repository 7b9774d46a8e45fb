package dev.limpet.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClosestVerbTest {
    static final List<String> VERBS = List.of("new", "ls", "attach", "send", "capture", "status", "install", "rm", "revive", "rename");

    @Test
    void distanceCountsInsertionsDeletionsSubstitutionsAndNeighbourSwapsAsOneEach() {
        assertThat(ClosestVerb.distance("atach", "attach")).isEqualTo(1);
        assertThat(ClosestVerb.distance("attachh", "attach")).isEqualTo(1);
        assertThat(ClosestVerb.distance("sned", "send")).isEqualTo(1);
        assertThat(ClosestVerb.distance("stauts", "status")).isEqualTo(1);
        assertThat(ClosestVerb.distance("", "ls")).isEqualTo(2);
        assertThat(ClosestVerb.distance("ls", "ls")).isZero();
    }

    @Test
    void onlyTheClosestVerbsAreOfferedAndOnlyWhenTheyAreClose() {
        assertThat(ClosestVerb.to("atach", VERBS)).containsExactly("attach");
        assertThat(ClosestVerb.to("rn", VERBS)).containsExactly("rm");
        assertThat(ClosestVerb.to("renme", VERBS)).containsExactly("rename");
        assertThat(ClosestVerb.to("reviv", VERBS)).containsExactly("revive");
        assertThat(ClosestVerb.to("xy", VERBS)).as("two edits from a two-letter word is no guess").isEmpty();
        assertThat(ClosestVerb.to("frobnicate", VERBS)).isEmpty();
    }
}
