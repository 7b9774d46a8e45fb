package dev.limpet.terminal.pty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.testkit.RawEcho;
import dev.limpet.testkit.TestPrograms;
import org.junit.jupiter.api.Test;

/** The latency benchmarks' far end works: raw mode, no line-discipline echo, every byte back at once. */
class RawEchoTest {
    @Test
    void rawEchoReturnsEachByteWithoutWaitingForANewline() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(TestPrograms.command(RawEcho.class))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.await("ready\r\n");
            out.type("a");
            out.await("ready\r\na");
            out.type("\u0003z");
            // Raw mode: Ctrl-C is a plain byte, not SIGINT, and the line discipline echoes nothing.
            assertThat(out.await("a\u0003z")).isEqualTo("ready\r\na\u0003z");
            assertThat(pty.exitStatus()).isEmpty();
            pty.signalGroup(Signal.KILL);
            pty.waitFor();
        }
    }
}
