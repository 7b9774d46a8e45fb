package dev.limpet.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.backend.TmuxTestServers;
import dev.limpet.daemon.backend.tmux.TmuxBackend;
import dev.limpet.daemon.backend.tmux.TmuxSettings;
import dev.limpet.daemon.files.DataRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Choosing the tmux backend: it runs when tmux can, and falls back loudly when it cannot. */
class BackendSelectionTest {
    @TempDir
    Path tmp;

    DaemonConfig config(String backend) {
        return new DaemonConfig(tmp.resolve("root"), "127.0.0.1", 0, backend, 1 << 16, Duration.ZERO, Duration.ofMinutes(1),
                Duration.ofSeconds(1), Set.of());
    }

    static TmuxSettings tmux(String executable) {
        return new TmuxSettings(executable, 1 << 16, TmuxSettings.PAUSE_AFTER, TmuxSettings.HEALTH_INTERVAL, Duration.ofSeconds(5),
                Clock.systemUTC());
    }

    @Test
    void backendTmuxRunsOnThePrivateServerWhenTmuxIsNewEnough() throws Exception {
        DataRoot root = DataRoot.resolve(tmp.resolve("root")).ensureExists();
        BackendSelection s = BackendSelection.select(config("tmux"), root, "d-0000000000000001", TmuxSettings.defaults(1 << 16));
        try {
            assertThat(s.backend()).isInstanceOf(TmuxBackend.class);
            assertThat(s.degraded()).isEmpty();
        } finally {
            s.backend().shutdown();
            TmuxTestServers.kill(root.tmux().resolve("limpet.sock"));
        }
    }

    @Test
    void aTooOldTmuxFallsBackToEmbeddedLoudlyNamingTheVersion() throws Exception {
        Path fake = tmp.resolve("old-tmux");
        Files.writeString(fake, "#!/bin/sh\necho 'tmux 2.9a'\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
        DataRoot root = DataRoot.resolve(tmp.resolve("root")).ensureExists();
        BackendSelection s = BackendSelection.select(config("tmux"), root, "d-0000000000000001", tmux(fake.toString()));
        assertThat(s.backend().name()).isEqualTo("embedded");
        assertThat(s.degraded()).first().asString().contains("tmux 2.9a is too old").contains("3.2 or newer")
                .contains("using the embedded backend");
        assertThat(s.degraded()).anySatisfy(d -> assertThat(d).contains("sessions end when the daemon stops"));
    }

    @Test
    void aMissingTmuxFallsBackToEmbeddedLoudly() throws Exception {
        DataRoot root = DataRoot.resolve(tmp.resolve("root")).ensureExists();
        BackendSelection s = BackendSelection.select(config("tmux"), root, "d-0000000000000001", tmux("/nonexistent/tmux"));
        assertThat(s.backend().name()).isEqualTo("embedded");
        assertThat(s.degraded()).first().asString().contains("the tmux backend cannot run").contains("tmux cannot be run");
    }
}
