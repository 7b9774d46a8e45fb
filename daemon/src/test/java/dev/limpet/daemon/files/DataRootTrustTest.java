package dev.limpet.daemon.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.limpet.daemon.Daemon;
import dev.limpet.daemon.DaemonConfig;
import dev.limpet.terminal.os.Posix;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A daemon never adopts a data root someone else could control: the attack (a user
 * prepares a world-writable directory with their own auth-token and
 * root starts a daemon on it), and its symlink variant, played with real ownership (chown, as root).
 */
class DataRootTrustTest {
    static final int STRANGER = 61_778;
    static final String PLANTED = "ab".repeat(32);

    @TempDir
    Path tmp;

    static DaemonConfig config(Path root) {
        return new DaemonConfig(root, "127.0.0.1", 0, "embedded", DaemonConfig.DEFAULT_RING_BYTES, Duration.ZERO, Duration.ofMinutes(1),
                Duration.ofSeconds(1), Set.of());
    }

    static void assumeRoot() {
        assumeTrue(Posix.getuid() == 0, "needs root to give files to another uid (chown)");
    }

    @Test
    void aDataRootAnotherUserPreparedIsRefusedAndTheirTokenNeverAccepted() throws Exception {
        assumeRoot();
        Path planted = Files.createDirectory(tmp.resolve("planted"));
        Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(planted, "unix:uid", STRANGER);
        Path token = Files.writeString(planted.resolve("auth-token"), PLANTED + "\n");
        Files.setAttribute(token, "unix:uid", STRANGER);

        assertThatThrownBy(() -> Daemon.start(config(planted))).isInstanceOfSatisfying(IOException.class,
                e -> assertThat(e.getMessage()).contains(planted.toString()).contains("owned by uid " + STRANGER));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(planted))).isEqualTo("rwxrwxrwx");
        assertThat((Integer) Files.getAttribute(planted, "unix:uid")).isEqualTo(STRANGER);
        try (var files = Files.list(planted)) {
            assertThat(files).as("nothing was written there").containsExactly(token);
        }
    }

    @Test
    void aSymlinkedDataRootIsRefusedAndItsTargetNeitherChmoddedNorFilled() throws Exception {
        Path target = Files.createDirectory(tmp.resolve("target"));
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path link = Files.createSymbolicLink(tmp.resolve("root"), target);
        assertThatThrownBy(() -> Daemon.start(config(link))).isInstanceOfSatisfying(IOException.class,
                e -> assertThat(e.getMessage()).contains("symbolic link"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target))).isEqualTo("rwxr-xr-x");
        try (var files = Files.list(target)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void aDataRootBelowADirectoryOthersMayWriteToIsRefused() throws Exception {
        Path shared = Files.createDirectory(tmp.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> Daemon.start(config(shared.resolve("root")))).isInstanceOf(IOException.class)
                .hasMessageContaining("sticky");
        assertThat(shared.resolve("root")).doesNotExist();
    }

    @Test
    void aTokenFileAnotherUserOwnsIsRefusedInADataRootOfOurs() throws Exception {
        assumeRoot();
        DataRoot root = new DataRoot(tmp.resolve("root")).ensureExists();
        Files.writeString(root.authToken(), PLANTED + "\n");
        Files.setAttribute(root.authToken(), "unix:uid", STRANGER);
        assertThatThrownBy(() -> AuthToken.loadOrCreate(root)).isInstanceOf(IOException.class).hasMessageContaining("planted");
    }

    @Test
    void aTokenThatIsASymlinkIsRefused() throws Exception {
        DataRoot root = new DataRoot(tmp.resolve("root")).ensureExists();
        Path elsewhere = Files.writeString(tmp.resolve("elsewhere"), PLANTED + "\n");
        Files.createSymbolicLink(root.authToken(), elsewhere);
        assertThatThrownBy(() -> AuthToken.loadOrCreate(root)).isInstanceOf(IOException.class).hasMessageContaining("symbolic link");
    }

    @Test
    void aDaemonOnItsOwnDataRootStartsAndKeepsItsToken() throws Exception {
        Path root = tmp.resolve("mine");
        try (Daemon d = Daemon.start(config(root))) {
            assertThat(Files.readString(root.resolve("auth-token")).strip()).isEqualTo(d.token());
            try (Socket s = new Socket("127.0.0.1", d.port())) {
                assertThat(s.isConnected()).isTrue();
            }
        }
    }
}
