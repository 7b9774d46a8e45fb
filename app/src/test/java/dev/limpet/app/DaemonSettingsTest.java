package dev.limpet.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.limpet.app.config.ConfigException;
import dev.limpet.app.config.ConfiguredDefaults;
import dev.limpet.daemon.DaemonConfig.Setting;
import dev.limpet.terminal.os.Posix;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The daemon's settings: flag over LIMPET_<KEY> over the settings file over the default, and bad files refused with their line. */
class DaemonSettingsTest {
    @TempDir
    Path tmp;

    private record Parsed(DaemonCommand command, ConfiguredDefaults defaults, List<Setting> settings) {}

    private Parsed parse(Map<String, String> env, String... args) {
        DaemonCommand command = new DaemonCommand();
        CommandLine cli = new CommandLine(command);
        ConfiguredDefaults defaults = ConfiguredDefaults.load(cli.getCommandSpec(), args, env, tmp.resolve("cfg"));
        cli.setDefaultValueProvider(defaults);
        cli.parseArgs(args);
        return new Parsed(command, defaults, defaults.effective(cli.getCommandSpec()));
    }

    private static String source(List<Setting> settings, String key) {
        return settings.stream().filter(s -> s.key().equals(key)).findFirst().orElseThrow().source();
    }

    @Test
    void aFlagBeatsTheEnvironmentWhichBeatsTheFileWhichBeatsTheDefault() throws Exception {
        Path file = Files.createDirectories(tmp.resolve("cfg")).resolve("config.toml");
        Files.writeString(file, """
                # limpet daemon settings
                port = 7500
                ring_bytes = 8388608
                ack-timeout = 30
                allow_origin = ["https://a.example", "https://b.example"]
                """);
        Parsed p = parse(Map.of("LIMPET_PORT", "7600", "LIMPET_ACK_TIMEOUT", "40"), "--ack-timeout", "20");
        assertThat(p.command().ackTimeoutSeconds).isEqualTo(20);
        assertThat(p.command().port).isEqualTo(7600);
        assertThat(p.command().ringBytes).isEqualTo(8388608);
        assertThat(p.command().allowOrigins).containsExactly("https://a.example", "https://b.example");
        assertThat(p.command().clientGraceSeconds).isEqualTo(600);
        assertThat(source(p.settings(), "ack_timeout")).isEqualTo("flag");
        assertThat(source(p.settings(), "port")).isEqualTo("env LIMPET_PORT");
        assertThat(source(p.settings(), "ring_bytes")).isEqualTo("file " + file);
        assertThat(source(p.settings(), "client_grace")).isEqualTo("default");
    }

    @Test
    void theBackendStillHonoursItsOlderVariable() {
        Parsed p = parse(Map.of("LIMPET_PTY_BACKEND", "embedded"));
        assertThat(p.command().backend).isEqualTo("embedded");
        assertThat(source(p.settings(), "backend")).isEqualTo("env LIMPET_PTY_BACKEND");
    }

    @Test
    void configNamesAnotherFileAndListeningInClearStaysACommandLineChoice() throws Exception {
        Path other = Files.writeString(tmp.resolve("other.toml"), "port = 7700\n");
        assertThat(parse(Map.of(), "--config", other.toString()).command().port).isEqualTo(7700);
        assertThat(parse(Map.of("LIMPET_CONFIG", other.toString())).command().port).isEqualTo(7700);
        Path insecure = Files.writeString(tmp.resolve("insecure.toml"), "port = 7700\ninsecure_listen = true\n");
        assertThatThrownBy(() -> parse(Map.of(), "--config", insecure.toString())).isInstanceOf(ConfigException.class)
                .hasMessageContaining(insecure + ":2").hasMessageContaining("unknown key 'insecure_listen'");
        assertThat(parse(Map.of("LIMPET_INSECURE_LISTEN", "true")).command().insecureListen).isFalse();
    }

    @Test
    void anUnknownKeyIsRefusedWithTheFileAndLine() throws Exception {
        Path file = Files.writeString(tmp.resolve("bad.toml"), "port = 7500\n\nring_byte = 10\n");
        assertThatThrownBy(() -> parse(Map.of(), "--config", file.toString())).isInstanceOf(ConfigException.class)
                .hasMessageContaining(file + ":3").hasMessageContaining("unknown key 'ring_byte'").hasMessageContaining("ring_bytes");
    }

    @Test
    void aValueOfTheWrongKindOrAFileThatIsNotTomlIsRefused() throws Exception {
        Path notAList = Files.writeString(tmp.resolve("a.toml"), "allow_origin = \"https://a.example\"\n");
        assertThatThrownBy(() -> parse(Map.of(), "--config", notAList.toString())).isInstanceOf(ConfigException.class)
                .hasMessageContaining(notAList + ":1").hasMessageContaining("list");
        Path table = Files.writeString(tmp.resolve("b.toml"), "[port]\nvalue = 1\n");
        assertThatThrownBy(() -> parse(Map.of(), "--config", table.toString())).isInstanceOf(ConfigException.class)
                .hasMessageContaining(table + ":1");
        Path broken = Files.writeString(tmp.resolve("c.toml"), "port = = 3\n");
        assertThatThrownBy(() -> parse(Map.of(), "--config", broken.toString())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("not valid TOML");
    }

    @Test
    void theDaemonVerbStopsWithExitTwoOnABadFileAndClientVerbsNeverReadIt() throws Exception {
        Path file = Files.writeString(tmp.resolve("bad.toml"), "colour = \"blue\"\n");
        assertThat(Main.run(Map.of("LIMPET_CONFIG", file.toString()), "daemon", "--port", "0")).isEqualTo(2);
    }

    /** A uid that owns nothing here: the other user whose environment a root daemon was started with ({@code sudo -E}). */
    static final int STRANGER = 61_779;

    @Test
    void aSettingsFileAnotherUserOwnsIsRefusedNamingIt() throws Exception {
        assumeTrue(Posix.getuid() == 0, "needs root to give a file to another uid (chown)");
        Path cfg = Files.createDirectories(tmp.resolve("cfg"));
        Path file = Files.writeString(cfg.resolve("config.toml"), "port = 7500\nallow_origin = [\"https://evil.example\"]\n");
        Files.setAttribute(file, "unix:uid", STRANGER);
        assertThatThrownBy(() -> parse(Map.of())).isInstanceOf(ConfigException.class).hasMessageContaining(file.toString())
                .hasMessageContaining("owned by uid " + STRANGER);
        assertThat(Main.run(Map.of("LIMPET_CONFIG", file.toString()), "daemon", "--port", "0")).isEqualTo(2);
    }

    @Test
    void aSettingsFileOthersMayWriteOrASymlinkIsRefused() throws Exception {
        Path cfg = Files.createDirectories(tmp.resolve("cfg"));
        Path file = Files.writeString(cfg.resolve("config.toml"), "port = 7500\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertThatThrownBy(() -> parse(Map.of())).isInstanceOf(ConfigException.class).hasMessageContaining(file.toString())
                .hasMessageContaining("writable by other users");
        Files.delete(file);
        Path elsewhere = Files.writeString(tmp.resolve("elsewhere.toml"), "port = 7500\n");
        Files.createSymbolicLink(file, elsewhere);
        assertThatThrownBy(() -> parse(Map.of())).isInstanceOf(ConfigException.class).hasMessageContaining("symbolic link");
        Path shared = Files.createDirectories(tmp.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path inShared = Files.writeString(shared.resolve("config.toml"), "port = 7500\n");
        assertThatThrownBy(() -> parse(Map.of("LIMPET_CONFIG", inShared.toString()))).isInstanceOf(ConfigException.class)
                .hasMessageContaining(shared.toString()).hasMessageContaining("sticky");
    }

    @Test
    void aSettingsFileOfOursReadableByOthersIsFine() throws Exception {
        Path file = Files.writeString(Files.createDirectories(tmp.resolve("cfg")).resolve("config.toml"), "port = 7500\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(parse(Map.of()).command().port).isEqualTo(7500);
    }
}
