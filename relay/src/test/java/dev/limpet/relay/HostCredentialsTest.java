package dev.limpet.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.limpet.terminal.os.Posix;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostCredentialsTest {
    @TempDir
    Path tmp;

    @Test
    void anEnrolledHostIsVerifiedAndOnlyTheHashIsStoredInAPrivateFile() throws Exception {
        HostCredentials hosts = new HostCredentials(tmp.resolve("relay"));
        HostCredentials.Enrolment e = hosts.add(new SecureRandom());
        assertThat(e.hostId()).matches("[a-z2-7]{26}");
        assertThat(hosts.verify(e.hostId(), e.credential())).isTrue();
        assertThat(hosts.verify(e.hostId(), e.credential() + "x")).isFalse();
        assertThat(hosts.verify("aaaaaaaaaaaaaaaaaaaaaaaaaa", e.credential())).isFalse();
        assertThat(hosts.verify(e.hostId(), null)).isFalse();
        Path file = tmp.resolve("relay").resolve(HostCredentials.FILE);
        assertThat(Files.readString(file)).doesNotContain(e.credential()).contains(e.hostId());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("relay")))).isEqualTo("rwx------");
    }

    @Test
    void severalHostsCoexistAndAMissingFileKnowsNobody() throws Exception {
        HostCredentials hosts = new HostCredentials(tmp.resolve("relay"));
        assertThat(hosts.hostIds()).isEmpty();
        var a = hosts.add(new SecureRandom());
        var b = hosts.add(new SecureRandom());
        assertThat(hosts.hostIds()).containsExactly(a.hostId(), b.hostId());
        assertThat(hosts.verify(a.hostId(), b.credential())).isFalse();
    }

    @Test
    void aHostsFileSomeoneElseCouldHaveWrittenLetsNoHostIn() throws Exception {
        HostCredentials hosts = new HostCredentials(tmp.resolve("relay"));
        var e = hosts.add(new SecureRandom());
        Path file = tmp.resolve("relay").resolve(HostCredentials.FILE);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertThat(hosts.verify(e.hostId(), e.credential())).isFalse();
        assertThatThrownBy(hosts::hostIds).hasMessageContaining(file.toString()).hasMessageContaining("writable by other users");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(tmp.resolve("relay"), PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThat(hosts.verify(e.hostId(), e.credential())).as("a relay dir others may write to").isFalse();
        Files.setPosixFilePermissions(tmp.resolve("relay"), PosixFilePermissions.fromString("rwx------"));
        assertThat(hosts.verify(e.hostId(), e.credential())).isTrue();
    }

    @Test
    void aHostsFileAnotherUserOwnsLetsNoHostIn() throws Exception {
        assumeTrue(Posix.getuid() == 0, "needs root to give a file to another uid (chown)");
        HostCredentials hosts = new HostCredentials(tmp.resolve("relay"));
        var e = hosts.add(new SecureRandom());
        Files.setAttribute(tmp.resolve("relay").resolve(HostCredentials.FILE), "unix:uid", 61_783);
        assertThat(hosts.verify(e.hostId(), e.credential())).isFalse();
        assertThatThrownBy(hosts::hostIds).hasMessageContaining("owned by uid 61783");
    }
}
