package dev.limpet.client.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientSessionKeyStoreTest {
    @TempDir
    Path home;

    @Test
    void createsTheKeyOnceInAnOwnerOnlyFileAndReadsTheSameKeyBack() throws Exception {
        Path dir = home.resolve("config/limpet");
        String key = new ClientSessionKeyStore(dir).loadOrCreate();

        assertThat(key).matches("[A-Za-z0-9_-]{43}");
        Path file = dir.resolve("client-session-key");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
        assertThat(new ClientSessionKeyStore(dir).loadOrCreate()).isEqualTo(key);
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(file);
        }
    }

    @Test
    void differentProfilesGetDifferentKeys() {
        String a = new ClientSessionKeyStore(home.resolve("a")).loadOrCreate();
        String b = new ClientSessionKeyStore(home.resolve("b")).loadOrCreate();
        assertThat(a).isNotEqualTo(b);
    }

    @Test
    void corruptKeyFileIsAnErrorNamingTheFileNotANewIdentity() throws Exception {
        Path file = home.resolve(ClientSessionKeyStore.FILE_NAME);
        Files.writeString(file, "not a key!\n");
        assertThatThrownBy(() -> new ClientSessionKeyStore(home).loadOrCreate())
                .isInstanceOf(ClientIdentityException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("corrupt");
        assertThat(Files.readString(file)).isEqualTo("not a key!\n");
    }

    @Test
    void emptyKeyFileIsCorrupt() throws Exception {
        Files.writeString(home.resolve(ClientSessionKeyStore.FILE_NAME), "");
        assertThatThrownBy(() -> new ClientSessionKeyStore(home).loadOrCreate()).isInstanceOf(ClientIdentityException.class);
    }

    @Test
    void unreadableKeyFileIsAnErrorNamingTheFile() throws Exception {
        Path file = home.resolve(ClientSessionKeyStore.FILE_NAME);
        Files.createDirectory(file); // reading a directory fails even for root
        assertThatThrownBy(() -> new ClientSessionKeyStore(home).loadOrCreate())
                .isInstanceOf(ClientIdentityException.class)
                .hasMessageContaining("cannot read").hasMessageContaining(file.toString());
    }

    @Test
    void keyFileReadableByOthersIsNarrowedToOwnerOnlyAndKept() throws Exception {
        Path file = home.resolve(ClientSessionKeyStore.FILE_NAME);
        Files.writeString(file, "abcdefgh12345678\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(new ClientSessionKeyStore(home).loadOrCreate()).isEqualTo("abcdefgh12345678");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    @Test
    void configDirFollowsXdgConfigHomeAndFallsBackToDotConfig() {
        assertThat(ConfigDirs.limpetConfigDir(Map.of("XDG_CONFIG_HOME", "/x/cfg"), "/home/me")).isEqualTo(Path.of("/x/cfg/limpet"));
        assertThat(ConfigDirs.limpetConfigDir(Map.of(), "/home/me")).isEqualTo(Path.of("/home/me/.config/limpet"));
        assertThat(ConfigDirs.limpetConfigDir(Map.of("XDG_CONFIG_HOME", "relative"), "/home/me"))
                .isEqualTo(Path.of("/home/me/.config/limpet"));
    }

    @Test
    void keyHashIsTheFirstEightHexDigitsOfSha256() {
        // sha256("abc") = ba7816bf...
        assertThat(KeyHash.of("abc")).isEqualTo("ba7816bf");
    }
}
