package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.terminal.os.PathTrust;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A client reads a daemon's address and token only from a data root nobody else controls. */
class DaemonLocatorTest {
    /** A uid that owns nothing here: how another user sees our data root. */
    private static final int STRANGER = 61_777;

    @TempDir
    Path tmp;

    private Path dataRoot(String perms) throws Exception {
        Path root = Files.createDirectory(tmp.resolve("root"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(root.resolve("daemon.json"), "{\"url\":\"http://127.0.0.1:7420\",\"daemon_instance_id\":\"d-1\"}");
        Files.writeString(root.resolve("auth-token"), "t".repeat(64) + "\n");
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString(perms));
        return root;
    }

    @Test
    void aDataRootOfOursGivesTheDaemonsAddressAndToken() throws Exception {
        DaemonEndpoint endpoint = DaemonLocator.fromDataRoot(dataRoot("rwx------"));
        assertThat(endpoint.baseUrl().toString()).isEqualTo("http://127.0.0.1:7420/");
        assertThat(endpoint.token()).isEqualTo("t".repeat(64));
    }

    @Test
    void aDataRootOthersMayWriteToIsRefusedBeforeItsTokenIsRead() throws Exception {
        Path root = dataRoot("rwxrwxrwx");
        assertThatThrownBy(() -> DaemonLocator.fromDataRoot(root)).isInstanceOfSatisfying(CliException.class, e -> {
            assertThat(e.exitCode()).isEqualTo(CliException.FAILED);
            assertThat(e.getMessage()).contains("refusing").contains("writable by other users");
        });
    }

    @Test
    void aDataRootAnotherUserOwnsIsRefused() throws Exception {
        Path root = dataRoot("rwx------");
        assertThatThrownBy(() -> DaemonLocator.fromDataRoot(root, new PathTrust(STRANGER))).isInstanceOfSatisfying(CliException.class,
                e -> assertThat(e.getMessage()).contains("is owned by"));
    }

    @Test
    void aTokenFileThatIsALinkIsRefused() throws Exception {
        Path root = dataRoot("rwx------");
        Path elsewhere = Files.writeString(tmp.resolve("their-token"), "x".repeat(64));
        Files.delete(root.resolve("auth-token"));
        Files.createSymbolicLink(root.resolve("auth-token"), elsewhere);
        assertThatThrownBy(() -> DaemonLocator.fromDataRoot(root)).isInstanceOfSatisfying(CliException.class,
                e -> assertThat(e.getMessage()).contains("symbolic link"));
    }

    @Test
    void aMissingDataRootMeansNoDaemon() {
        assertThatThrownBy(() -> DaemonLocator.fromDataRoot(tmp.resolve("nothing-here"))).isInstanceOfSatisfying(CliException.class,
                e -> assertThat(e.exitCode()).isEqualTo(CliException.NO_DAEMON));
    }
}
