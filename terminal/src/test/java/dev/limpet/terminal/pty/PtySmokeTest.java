package dev.limpet.terminal.pty;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PtySmokeTest {
    @Test
    void spawnedProgramOutputArrivesAndExitIsReported() throws Exception {
        try (PtyProcess pty = PtyProcess.spawn(PtySpawnSpec.of(List.of("/bin/echo", "hello pty"), 80, 24))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.await("hello pty\r\n");
            out.awaitEof();
            assertThat(pty.waitFor()).isEqualTo(ExitStatus.exited(0));
        }
    }
}
