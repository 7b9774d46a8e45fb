package dev.limpet.relay;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClientSocketTest {
    @Test
    void onlyASocketThatSentNoAnswerIsLeftForTheGatesTimer() {
        ClientSocket s = new ClientSocket("h", "203.0.113.7", null);
        assertThat(s.unanswered()).isTrue();
        s.atGate(new byte[32]);
        assertThat(s.unanswered()).isTrue();
        assertThat(s.answering()).hasSize(32);
        assertThat(s.unanswered()).as("its answer is being checked: the check decides, not the timer").isFalse();
        assertThat(s.routed(new ClientSocket.Local(7))).isTrue();
        assertThat(s.unanswered()).isFalse();
        assertThat(s.gone()).isEqualTo(new ClientSocket.Local(7));
        assertThat(s.unanswered()).isFalse();
    }
}
