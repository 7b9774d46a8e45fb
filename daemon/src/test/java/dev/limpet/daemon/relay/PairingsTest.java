package dev.limpet.daemon.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.limpet.terminal.os.Posix;
import dev.limpet.testkit.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PairingsTest {
    @TempDir
    Path root;

    @Test
    void aPairingIsFoundByItsIdListedWithoutItsSecretAndGoneOnceRevoked() throws Exception {
        Pairings pairings = new Pairings(root, new ManualClock());
        var secret = pairings.create("phone", new SecureRandom());
        var other = pairings.create("laptop", new SecureRandom());
        assertThat(pairings.find(secret.pairingId())).contains(secret);
        assertThat(pairings.list()).extracting(Pairings.Listed::label).containsExactly("phone", "laptop");
        assertThat(pairings.list().toString()).doesNotContain(secret.encoded());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve(Pairings.FILE)))).isEqualTo("rw-------");

        assertThat(pairings.revoke(secret.pairingId().substring(0, 8))).isEqualTo(1);
        assertThat(pairings.find(secret.pairingId())).isEmpty();
        assertThat(pairings.find(other.pairingId())).contains(other);
        assertThatThrownBy(() -> pairings.revoke("ab")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aDamagedFileFindsNothingFailingClosed() throws Exception {
        Pairings pairings = new Pairings(root, new ManualClock());
        var secret = pairings.create("x", new SecureRandom());
        Files.writeString(root.resolve(Pairings.FILE), "{not json");
        assertThat(pairings.find(secret.pairingId())).isEmpty();
    }

    @Test
    void theRelayCredentialFileMustBePrivateAndWellFormed() throws Exception {
        assertThatThrownBy(() -> RelayCredential.load(root)).hasMessageContaining("relay add-host");
        Path file = root.resolve(RelayCredential.FILE);
        Files.writeString(file, "abcdefghijklmnopqrstuvwxyz.c2VjcmV0LWNyZWRlbnRpYWwtdmFsdWU\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> RelayCredential.load(root)).hasMessageContaining("chmod 600");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        RelayCredential c = RelayCredential.load(root);
        assertThat(c.hostId()).isEqualTo("abcdefghijklmnopqrstuvwxyz");
        assertThat(c.toString()).doesNotContain(c.credential());
        Files.writeString(file, "garbage");
        assertThatThrownBy(() -> RelayCredential.load(root)).hasMessageContaining("does not hold");
    }

    @Test
    void aPairingsFileOrRelayCredentialAnotherUserOwnsIsNeverTrusted() throws Exception {
        assumeTrue(Posix.getuid() == 0, "needs root to give a file to another uid (chown)");
        Pairings pairings = new Pairings(root, new ManualClock());
        var secret = pairings.create("phone", new SecureRandom());
        Files.setAttribute(root.resolve(Pairings.FILE), "unix:uid", 61_782);
        assertThat(pairings.find(secret.pairingId())).as("a planted pairing lets nobody in").isEmpty();
        assertThatThrownBy(() -> pairings.create("x", new SecureRandom())).hasMessageContaining(root.resolve(Pairings.FILE).toString())
                .hasMessageContaining("owned by uid 61782");
        Path credential = Files.writeString(root.resolve(RelayCredential.FILE), "abcdefghijklmnopqrstuvwxyz.c2VjcmV0LWNyZWRlbnRpYWwtdmFsdWU\n");
        Files.setPosixFilePermissions(credential, PosixFilePermissions.fromString("rw-------"));
        Files.setAttribute(credential, "unix:uid", 61_782);
        assertThatThrownBy(() -> RelayCredential.load(root)).hasMessageContaining(credential.toString()).hasMessageContaining("owned by uid 61782");
    }

    @Test
    void aPairingsFileOthersMayReadOrALinkedOneLetsNobodyIn() throws Exception {
        Pairings pairings = new Pairings(root, new ManualClock());
        var secret = pairings.create("phone", new SecureRandom());
        Path file = root.resolve(Pairings.FILE);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(pairings.find(secret.pairingId())).isEmpty();
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Path moved = Files.move(file, root.resolveSibling(root.getFileName() + "-pairings.json"));
        Files.createSymbolicLink(file, moved);
        assertThat(pairings.find(secret.pairingId())).isEmpty();
        assertThatThrownBy(() -> RelayCredential.load(root.resolve("absent"))).hasMessageContaining("relay add-host");
        Files.delete(moved);
    }
}
