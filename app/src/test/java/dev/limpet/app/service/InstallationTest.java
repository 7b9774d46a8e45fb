package dev.limpet.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InstallationTest {
    @TempDir
    Path tmp;

    Path installedJar() throws Exception {
        Path jar = Files.createDirectories(tmp.resolve("lib/limpet")).resolve("limpet.jar");
        Files.writeString(jar, "jar");
        Files.createDirectories(tmp.resolve("bin"));
        return jar;
    }

    void writeLauncher(String text) throws Exception {
        Path launcher = tmp.resolve("bin/limpet");
        Files.writeString(launcher, text);
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void aServiceStartsTheDaemonThroughTheLauncherInstallWroteForThisJarSoItUsesTheDaemonsCache() throws Exception {
        Path jar = installedJar();
        Path java = Path.of("/opt/jdk/bin/java");
        writeLauncher(InstallCommand.launcher(java, jar, jar.resolveSibling("limpet-cli.aot"), jar.resolveSibling("limpet-daemon.aot"),
                jar.resolveSibling("limpet-worker.jsa")));
        assertThat(new Installation(java, jar).daemonCommand()).containsExactly(tmp.resolve("bin/limpet").toString(), "daemon");
    }

    @Test
    void withoutThatLauncherOrWithOneForAnotherJarTheServiceRunsJavaDirectly() throws Exception {
        Path jar = installedJar();
        Path java = Path.of("/opt/jdk/bin/java");
        Installation inst = new Installation(java, jar);
        assertThat(inst.daemonCommand()).startsWith(java.toString()).endsWith("-jar", jar.toString(), "daemon");
        writeLauncher(InstallCommand.launcher(java, tmp.resolve("elsewhere.jar"), tmp.resolve("a"), tmp.resolve("b"), tmp.resolve("c")));
        assertThat(inst.daemonCommand()).startsWith(java.toString()).endsWith("-jar", jar.toString(), "daemon");
        writeLauncher("#!/bin/sh\nexec something-else \"$@\"\n");
        assertThat(inst.daemonCommand()).startsWith(java.toString());
    }
}
