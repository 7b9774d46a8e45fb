package dev.limpet.client.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.limpet.terminal.os.Posix;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostsConfigTest {
    @TempDir
    Path dir;

    HostsConfig load(String json) throws Exception {
        Path file = dir.resolve("hosts.json");
        Files.writeString(file, json);
        return HostsConfig.load(file);
    }

    void assertRejected(String json, String... fragments) {
        assertThatThrownBy(() -> load(json)).isInstanceOf(ClientIdentityException.class)
                .hasMessageContaining(dir.resolve("hosts.json").toString())
                .satisfies(e -> assertThat(e.getMessage()).contains(fragments));
    }

    @Test
    void parsesHostsInFileOrder() throws Exception {
        HostsConfig config = load("""
                {"hosts":[
                  {"name":"laptop","url":"http://127.0.0.1:7420","token_file":"/etc/limpet/token"},
                  {"name":"box","url":"https://box.example:8443/","token_file":"tokens/box"}]}""");
        assertThat(config.all()).extracting(HostsConfig.HostEntry::name).containsExactly("laptop", "box");
        assertThat(config.find("laptop")).get().isEqualTo(
                new HostsConfig.HostEntry("laptop", URI.create("http://127.0.0.1:7420"), Path.of("/etc/limpet/token")));
        assertThat(config.find("box").orElseThrow().tokenFile()).isEqualTo(dir.resolve("tokens/box"));
        assertThat(config.find("nope")).isEmpty();
    }

    @Test
    void tildeInTokenFileMeansTheHomeDirectory() throws Exception {
        HostsConfig config = load("{\"hosts\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"token_file\":\"~/.limpet/auth-token\"}]}");
        assertThat(config.find("a").orElseThrow().tokenFile())
                .isEqualTo(Path.of(System.getProperty("user.home"), ".limpet/auth-token"));
    }

    @Test
    void missingFileIsAnEmptyConfigurationAndUnknownHostsAreNamed() {
        HostsConfig config = HostsConfig.load(dir.resolve("absent.json"));
        assertThat(config.all()).isEmpty();
        assertThatThrownBy(() -> config.require("box")).isInstanceOf(ClientIdentityException.class)
                .hasMessageContaining("unknown host 'box'").hasMessageContaining("no hosts configured");
    }

    @Test
    void unknownHostErrorListsTheConfiguredNames() throws Exception {
        HostsConfig config = load("{\"hosts\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"token_file\":\"t\"}]}");
        assertThatThrownBy(() -> config.require("b")).hasMessageContaining("unknown host 'b'").hasMessageContaining(": a)");
    }

    @Test
    void rejectsInvalidJsonWithItsPosition() {
        assertRejected("{\"hosts\": [", "not valid JSON", "line 1");
    }

    @Test
    void rejectsADocumentWithoutAHostsArray() {
        assertRejected("[]", "must be a JSON object");
        assertRejected("{}", "needs a \"hosts\" array");
        assertRejected("{\"hosts\":{}}", "needs a \"hosts\" array");
    }

    @Test
    void rejectsEntriesThatAreNotObjects() {
        assertRejected("{\"hosts\":[\"laptop\"]}", "hosts[0] must be an object");
    }

    @Test
    void rejectsMissingOrEmptyFieldsNamingEntryAndField() {
        assertRejected("{\"hosts\":[{\"url\":\"http://h:1\",\"token_file\":\"t\"}]}", "hosts[0]", "\"name\" is missing");
        assertRejected("{\"hosts\":[{\"name\":\"a\",\"token_file\":\"t\"}]}", "hosts[0] ('a')", "\"url\" is missing");
        assertRejected("{\"hosts\":[{\"name\":\"a\",\"url\":\"http://h:1\"}]}", "\"token_file\" is missing");
        assertRejected("{\"hosts\":[{\"name\":\"\",\"url\":\"http://h:1\",\"token_file\":\"t\"}]}", "\"name\" must be a non-empty string");
        assertRejected("{\"hosts\":[{\"name\":7,\"url\":\"http://h:1\",\"token_file\":\"t\"}]}", "\"name\" must be a non-empty string");
    }

    @Test
    void rejectsUrlsThatAreNotAbsoluteHttp() {
        assertRejected("{\"hosts\":[{\"name\":\"a\",\"url\":\"ftp://h/\",\"token_file\":\"t\"}]}", "absolute http:// or https://");
        assertRejected("{\"hosts\":[{\"name\":\"a\",\"url\":\"127.0.0.1:7420\",\"token_file\":\"t\"}]}", "\"url\"");
        assertRejected("{\"hosts\":[{\"name\":\"a\",\"url\":\"http://bad host\",\"token_file\":\"t\"}]}", "\"url\" is not a URL");
    }

    @Test
    void rejectsDuplicateNames() {
        assertRejected("""
                {"hosts":[{"name":"a","url":"http://h:1","token_file":"t"},
                          {"name":"a","url":"http://h:2","token_file":"t"}]}""", "hosts[1]", "'a' is used twice");
    }

    @Test
    void readsTheTokenAndNamesAnUnreadableTokenFile() throws Exception {
        Files.writeString(dir.resolve("tok"), "s3cret\n");
        Files.setPosixFilePermissions(dir.resolve("tok"), PosixFilePermissions.fromString("rw-------"));
        HostsConfig config = load("{\"hosts\":[{\"name\":\"a\",\"url\":\"http://h:1\",\"token_file\":\"tok\"},"
                + "{\"name\":\"b\",\"url\":\"http://h:1\",\"token_file\":\"missing\"}]}");
        assertThat(config.require("a").readToken()).isEqualTo("s3cret");
        assertThatThrownBy(() -> config.require("b").readToken()).isInstanceOf(ClientIdentityException.class)
                .hasMessageContaining(dir.resolve("missing").toString()).hasMessageContaining("host 'b'");
    }

    @Test
    void webSocketUriIsDerivedFromTheBaseUrl() {
        assertThat(new ConnectionTarget("a", URI.create("http://127.0.0.1:7420"), "t").webSocketUri())
                .isEqualTo(URI.create("ws://127.0.0.1:7420/ws"));
        assertThat(new ConnectionTarget("a", URI.create("https://box:8443/limpet/"), "t").webSocketUri())
                .isEqualTo(URI.create("wss://box:8443/limpet/ws"));
        assertThat(new ConnectionTarget("a", URI.create("http://h:1"), "secret").toString()).doesNotContain("secret");
    }

    @Test
    void aJoinedRelayHostIsStoredBesideTheOthersWithItsSecretInAPrivateFile() throws Exception {
        Path file = dir.resolve("cfg").resolve("hosts.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{\"hosts\":[{\"name\":\"laptop\",\"url\":\"http://127.0.0.1:7420\",\"token_file\":\"/etc/t\"}]}");
        var secret = dev.limpet.protocol.relay.PairingSecret.generate(new SecureRandom());
        URI host = URI.create("https://relay.example/h/abcdefghijklmnopqrstuvwxyz");
        Path secretFile = HostsConfig.addRelayHost(file, "box", host, secret);
        HostsConfig config = HostsConfig.load(file);
        assertThat(config.all()).extracting(HostsConfig.HostEntry::name).containsExactly("laptop", "box");
        HostsConfig.HostEntry box = config.require("box");
        assertThat(box.relay()).isTrue();
        assertThat(box.url()).isEqualTo(host);
        assertThat(box.readSecret()).isEqualTo(secret);
        assertThat(config.require("laptop").relay()).isFalse();
        assertThat(Files.readString(file)).doesNotContain(secret.encoded());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secretFile))).isEqualTo("rw-------");
        HostsConfig.addRelayHost(file, "box", host, secret);
        assertThat(HostsConfig.load(file).all()).hasSize(2);
    }

    @Test
    void aRelayHostNeedsItsSecretFile() {
        assertRejected("{\"hosts\":[{\"name\":\"box\",\"relay\":\"https://relay.example/h/abcdefghijklmnopqrstuvwxyz\"}]}", "secret_file");
    }

    static final int STRANGER = 61_781;

    @Test
    void aHostsFileOrSecretAnotherUserOwnsIsRefusedNamingIt() throws Exception {
        assumeTrue(Posix.getuid() == 0, "needs root to give a file to another uid (chown)");
        var secret = dev.limpet.protocol.relay.PairingSecret.generate(new SecureRandom());
        Path file = dir.resolve("cfg").resolve("hosts.json");
        Path secretFile = HostsConfig.addRelayHost(file, "box", URI.create("https://relay.example/h/abcdefghijklmnopqrstuvwxyz"), secret);
        Files.setAttribute(secretFile, "unix:uid", STRANGER);
        assertThatThrownBy(() -> HostsConfig.load(file).require("box").readSecret()).isInstanceOf(ClientIdentityException.class)
                .hasMessageContaining(secretFile.toString()).hasMessageContaining("owned by uid " + STRANGER);
        Files.setAttribute(file, "unix:uid", STRANGER);
        assertThatThrownBy(() -> HostsConfig.load(file)).isInstanceOf(ClientIdentityException.class).hasMessageContaining(file.toString())
                .hasMessageContaining("owned by uid " + STRANGER);
    }

    @Test
    void aSecretOthersMayReadAHostsFileOthersMayWriteOrASymlinkIsRefused() throws Exception {
        var secret = dev.limpet.protocol.relay.PairingSecret.generate(new SecureRandom());
        Path file = dir.resolve("cfg").resolve("hosts.json");
        Path secretFile = HostsConfig.addRelayHost(file, "box", URI.create("https://relay.example/h/abcdefghijklmnopqrstuvwxyz"), secret);
        Files.setPosixFilePermissions(secretFile, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> HostsConfig.load(file).require("box").readSecret()).isInstanceOf(ClientIdentityException.class)
                .hasMessageContaining(secretFile.toString()).hasMessageContaining("readable or writable by other users");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertThatThrownBy(() -> HostsConfig.load(file)).isInstanceOf(ClientIdentityException.class).hasMessageContaining("writable by other users");
        Path real = dir.resolve("real.json");
        Files.move(file, real);
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rw-------"));
        Files.createSymbolicLink(file, real);
        assertThatThrownBy(() -> HostsConfig.load(file)).isInstanceOf(ClientIdentityException.class).hasMessageContaining("symbolic link");
    }
}
