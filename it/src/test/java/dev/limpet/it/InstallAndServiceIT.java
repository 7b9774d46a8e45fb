package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * limpet as a person installs and runs it: {@code limpet install} into a prefix, verbs run from
 * there, bash completing a session's label from the running daemon, the user service's unit, and
 * {@code limpet doctor} on a healthy and on a broken data root.
 */
class InstallAndServiceIT {
    @TempDir
    static Path dir;
    static DaemonProcess daemon;
    static Path root;
    static Path prefix;

    @BeforeAll
    static void start() throws Exception {
        root = dir.resolve("root");
        daemon = DaemonProcess.start(root);
        prefix = dir.resolve("prefix");
        // Under umask 000, as a careless shell or a container may have it: the install must set its modes itself.
        List<String> cmd = new ArrayList<>(List.of("sh", "-c", "umask 000 && exec \"$0\" \"$@\"", DaemonProcess.java()));
        cmd.addAll(DaemonProcess.fastJvm());
        cmd.addAll(List.of("-jar", DaemonProcess.jar().toString(), "install", "--prefix", prefix.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("LIMPET_HOME", root.toString());
        LimpetCli.Result r = LimpetCli.run(pb, "limpet install under umask 000");
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("installed " + prefix.resolve("bin/limpet"));
    }

    @AfterAll
    static void stop() throws Exception {
        daemon.close();
    }

    /** Runs {@code command} in bash with the installed limpet first on PATH. */
    static LimpetCli.Result bash(String command, Map<String, String> extraEnv) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", command);
        Map<String, String> env = pb.environment();
        env.put("PATH", prefix.resolve("bin") + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("LIMPET_HOME", root.toString());
        env.putAll(extraEnv);
        return LimpetCli.run(pb, "bash -c " + command);
    }

    @Test
    void theInstalledCommandRunsVerbsAgainstTheDaemon() throws Exception {
        String id = daemon.spawn("installed-ls", List.of("sleep", "60"));
        Path launcher = prefix.resolve("bin/limpet");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(launcher))).isEqualTo("rwxr-xr-x");
        assertThat(prefix.resolve("lib/limpet/limpet.jar")).isRegularFile();
        LimpetCli.Result ls = bash("limpet ls", Map.of());
        assertThat(ls.exitCode()).as(ls.err()).isZero();
        assertThat(ls.out()).contains(id).contains("installed-ls");
    }

    @Test
    void underUmask000InstallLeavesNothingOthersMayWrite() throws Exception {
        try (var all = Files.walk(prefix)) {
            for (Path p : all.toList()) {
                int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 0777;
                assertThat(mode & 0022).as("%s has mode %o", p, mode).isZero();
            }
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(prefix.resolve("lib/limpet/limpet.jar")))).isEqualTo("rw-r--r--");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(prefix.resolve("lib/limpet")))).isEqualTo("rwxr-xr-x");
    }

    @Test
    void installTrainsTheVerbsStartUpCacheOnRealVerbRunsNewerThanTheInstalledJar() throws Exception {
        Path jar = prefix.resolve("lib/limpet/limpet.jar");
        Path aot = prefix.resolve("lib/limpet/limpet-cli.aot");
        Path daemonAot = prefix.resolve("lib/limpet/limpet-daemon.aot");
        // Install waits 90 s at most; on a loaded machine the training finishes in the background.
        org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(6)).until(() -> Files.exists(aot) && Files.exists(daemonAot)
                && !Files.exists(prefix.resolve("lib/limpet/limpet-aot.next")));
        assertThat(Files.getLastModifiedTime(aot)).isGreaterThan(Files.getLastModifiedTime(jar));
        // Trained on real runs: the classes of an answer from a daemon come from the cache.
        LimpetCli.Result ls = bash("limpet ls", Map.of("LIMPET_JAVA_OPTS", "-Xlog:class+load=info"));
        assertThat(ls.exitCode()).as(ls.err()).isZero();
        assertThat(ls.out()).contains("dev.limpet.client.cli.PlainHttp source: shared objects file");
        assertThat(daemonAot).as("the daemon's cache, trained in the same run").isRegularFile();
        assertThat(Files.getLastModifiedTime(daemonAot)).isGreaterThan(Files.getLastModifiedTime(jar));
    }

    @Test
    void bashCompletesASessionsLabelFromTheRunningDaemon() throws Exception {
        String id = daemon.spawn("buildbox", List.of("sleep", "60"));
        LimpetCli.Result r = bash("source <(limpet completion bash); COMP_WORDS=(limpet attach buil); COMP_CWORD=2; _limpet_complete; "
                + "echo \"${COMPREPLY[@]}\"; COMP_WORDS=(limpet send " + id.substring(0, 3) + "); _limpet_complete; echo \"${COMPREPLY[@]}\"",
                Map.of());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out().lines().toList()).containsExactly("buildbox", id);
    }

    @Test
    void theUserServiceUnitRunsTheInstalledLauncherAndStopsOnlyTheDaemon() throws Exception {
        Path config = dir.resolve("config");
        LimpetCli.Result r = bash("limpet service install --no-start", Map.of("XDG_CONFIG_HOME", config.toString()));
        assertThat(r.exitCode()).as(r.err()).isZero();
        Path unit = config.resolve("systemd/user/limpet.service");
        assertThat(r.out()).contains("wrote " + unit);
        String text = Files.readString(unit);
        // Through the launcher `limpet install` wrote: it starts the daemon from its AOT cache while that is fresh.
        assertThat(text).contains("ExecStart=" + prefix.resolve("bin/limpet") + " daemon\n").contains("KillMode=process")
                .contains("Restart=on-failure").contains("Environment=LIMPET_HOME=" + root);
        LimpetCli.Result status = bash("limpet service status", Map.of("XDG_CONFIG_HOME", config.toString()));
        assertThat(status.out()).contains("unit: " + unit);
        LimpetCli.Result removed = bash("limpet service uninstall", Map.of("XDG_CONFIG_HOME", config.toString()));
        assertThat(removed.exitCode()).isZero();
        assertThat(unit).doesNotExist();
        // systemd itself is checked where it runs: a CI container has no user manager (the verbs say so on stderr).
    }

    @Test
    void doctorIsHappyWithTheRunningDaemonAndNamesWhatIsBrokenOnABrokenRoot() throws Exception {
        LimpetCli.Result ok = bash("limpet doctor", Map.of());
        assertThat(ok.exitCode()).as(ok.out()).isZero();
        assertThat(ok.out()).contains("ok   data root").contains("ok   daemon pid").contains("no problem found");

        Path broken = Files.createDirectories(dir.resolve("broken"));
        Files.writeString(broken.resolve("daemon.json"), "{\"pid\":999999999,\"url\":\"http://127.0.0.1:1/\"}");
        Files.writeString(broken.resolve("auth-token"), "t".repeat(64));
        Files.setPosixFilePermissions(broken.resolve("auth-token"), PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(broken, PosixFilePermissions.fromString("rwx------"));
        Map<String, String> env = new HashMap<>(Map.of("LIMPET_HOME", broken.toString()));
        LimpetCli.Result bad = bash("limpet doctor", env);
        assertThat(bad.exitCode()).isEqualTo(1);
        assertThat(bad.out()).contains("FAIL auth-token has mode rw-r--r--").contains("chmod 600")
                .contains("FAIL stale daemon.json").contains("problems found");

        Files.setPosixFilePermissions(broken, PosixFilePermissions.fromString("rwxrwxrwx"));
        LimpetCli.Result open = bash("limpet doctor", env);
        assertThat(open.exitCode()).isEqualTo(1);
        assertThat(open.out()).contains("writable by other users");
    }
}
