package dev.limpet.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServiceFilesTest {
    private static final List<String> COMMAND = List.of("/opt/jdk 25/bin/java", "--enable-native-access=ALL-UNNAMED", "-jar",
            "/home/u/.local/lib/limpet/limpet.jar", "daemon");

    @Test
    void theSystemdUnitRestartsTheDaemonOnFailureAndNeverStopsTheSessionsWorkers() {
        String unit = ServiceFiles.systemdUnit(COMMAND, List.of("LIMPET_HOME=/home/u/limpet data"));
        assertThat(unit).contains("\nRestart=on-failure\n").contains("\nKillMode=process\n").contains("\nWantedBy=default.target\n")
                .contains("ExecStart=\"/opt/jdk 25/bin/java\" --enable-native-access=ALL-UNNAMED -jar /home/u/.local/lib/limpet/limpet.jar daemon\n")
                .contains("Environment=\"LIMPET_HOME=/home/u/limpet data\"\n");
        assertThat(unit.lines().filter(l -> l.startsWith("KillMode=")).toList()).containsExactly("KillMode=process");
    }

    @Test
    void systemdSpecifiersAndQuotesInPathsAreEscaped() {
        assertThat(ServiceFiles.systemdQuote("/home/u/100%/x")).isEqualTo("/home/u/100%%/x");
        assertThat(ServiceFiles.systemdQuote("a \"b\" $c")).isEqualTo("\"a \\\"b\\\" $$c\"");
    }

    @Test
    void aControlCharacterInAnyValueIsRefusedBeforeItCanStartADirective() {
        String injected = "/home/u/limpet\nExecStartPre=/bin/sh -c 'touch /tmp/pwned'";
        for (List<String> env : List.of(List.of("LIMPET_HOME=" + injected), List.of("LIMPET_CONFIG=/x\r/y"), List.of("LIMPET_HOME=/a\u2028b"))) {
            assertThatThrownBy(() -> ServiceFiles.systemdUnit(COMMAND, env)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("control character");
            assertThatThrownBy(() -> ServiceFiles.launchdPlist(COMMAND, env, Path.of("/l"))).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> ServiceFiles.systemdUnit(List.of("/opt/java", "-jar", "/x\n/limpet.jar"), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("U+000A");
        assertThatThrownBy(() -> ServiceFiles.launchdPlist(COMMAND, List.of(), Path.of("/l\u0085og"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theLaunchdAgentKeepsTheDaemonAliveAndLeavesItsWorkersWhenItStops() {
        String plist = ServiceFiles.launchdPlist(COMMAND, List.of("LIMPET_HOME=/Users/u/<limpet>"), Path.of("/Users/u/Library/Logs/limpet.log"));
        assertThat(plist).contains("<key>Label</key><string>dev.limpet.daemon</string>")
                .contains("<key>AbandonProcessGroup</key><true/>")
                .contains("<dict><key>SuccessfulExit</key><false/></dict>")
                .contains("<string>/opt/jdk 25/bin/java</string>")
                .contains("<key>LIMPET_HOME</key><string>/Users/u/&lt;limpet&gt;</string>");
    }

    @Test
    void theInstalledLauncherStartsTheDaemonAndTheVerbsOnC1EachWithItsCacheOnlyWhileItIsFresh() {
        String sh = InstallCommand.launcher(Path.of("/opt/jdk/bin/java"), Path.of("/p/lib/limpet/limpet.jar"),
                Path.of("/p/lib/limpet/limpet-cli.aot"), Path.of("/p/lib/limpet/limpet-daemon.aot"), Path.of("/p/lib/limpet/limpet-worker.jsa"));
        assertThat(sh).startsWith("#!/bin/sh\n").contains("java='/opt/jdk/bin/java'").contains("[ \"$aot\" -nt \"$jar\" ]")
                .contains("-XX:AOTCache=\"$aot\"").contains("[ \"$daemon_aot\" -nt \"$jar\" ]").contains("-XX:AOTCache=\"$daemon_aot\"")
                .as("a missing workers' cache is trained too").contains("[ \"$worker_jsa\" -nt \"$jar\" ]");
        assertThat(sh.lines().filter(l -> l.contains("exec \"$java\"")).toList()).as("the daemon and the verbs, each with and without its cache")
                .hasSize(4).allSatisfy(l -> assertThat(l).contains("-XX:TieredStopAtLevel=1"));
        assertThat(sh.lines().filter(l -> l.contains("exec") && l.contains("$daemon_aot")).count()).isEqualTo(1);
    }
}
