package dev.limpet.relay;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GateAdmissionTest {
    @Test
    void oneAddressHoldsOnlyItsShareAndTheHostsGateFillsFromManyAddressesOnly() {
        GateAdmission gate = new GateAdmission(2, 3);
        assertThat(gate.enter("h", "a")).isEqualTo(GateAdmission.Verdict.ADMITTED);
        assertThat(gate.enter("h", "a")).isEqualTo(GateAdmission.Verdict.ADMITTED);
        assertThat(gate.peek("h", "a")).isEqualTo(GateAdmission.Verdict.ADDRESS_BUSY);
        assertThat(gate.enter("h", "a")).isEqualTo(GateAdmission.Verdict.ADDRESS_BUSY);
        assertThat(gate.enter("other", "a")).as("the share is the address's, across hosts").isEqualTo(GateAdmission.Verdict.ADDRESS_BUSY);
        assertThat(gate.enter("h", "b")).isEqualTo(GateAdmission.Verdict.ADMITTED);
        assertThat(gate.enter("h", "c")).isEqualTo(GateAdmission.Verdict.GATE_FULL);
        gate.leave("h", "a");
        assertThat(gate.atGate("h")).isEqualTo(2);
        assertThat(gate.enter("h", "c")).isEqualTo(GateAdmission.Verdict.ADMITTED);
        gate.leave("h", "a");
        gate.leave("h", "b");
        gate.leave("h", "c");
        assertThat(gate.atGate("h")).isZero();
    }

    @Test
    void theForwardedAddressCountsOnlyWhenAProxyOnThisMachineSaysIt() {
        assertThat(ClientAddress.of("127.0.0.1", "198.51.100.1, 203.0.113.7")).isEqualTo("203.0.113.7");
        assertThat(ClientAddress.of("::1", "2001:db8::1")).isEqualTo("2001:db8::1");
        assertThat(ClientAddress.of("192.0.2.5", "203.0.113.7")).as("a remote client's own word").isEqualTo("192.0.2.5");
        assertThat(ClientAddress.of("127.0.0.1", "not an address<script>")).isEqualTo("127.0.0.1");
        assertThat(ClientAddress.of("127.0.0.1", null)).isEqualTo("127.0.0.1");
    }
}
