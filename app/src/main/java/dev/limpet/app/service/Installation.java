package dev.limpet.app.service;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * This limpet: the JDK it runs on and the jar it runs from, and how a service or a launcher starts
 * its daemon and its verbs the way {@code ./limpet} does.
 */
public record Installation(Path java, Path jar) {
    /** The JVM flags of the long-lived daemon (full JIT). */
    public static final List<String> DAEMON_JVM = List.of("--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xms8m",
            "-XX:TrimNativeHeapInterval=5000");
    /** The JVM flags of short-lived verbs (start fast). */
    public static final List<String> CLIENT_JVM = List.of("--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    /** The running process's JDK and jar. */
    public static Installation current() {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path jar;
        try {
            jar = Path.of(Installation.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            throw new IllegalStateException("cannot tell which jar this limpet runs from: " + e.getMessage());
        }
        return new Installation(java, jar);
    }

    /** Whether this is a runnable jar (not classes of a build directory, as in tests). */
    public boolean isJar() {
        return Files.isRegularFile(jar) && jar.toString().endsWith(".jar");
    }

    /** Whether the jar sits in a build's output, which the next build rewrites. */
    public boolean inBuildDirectory() {
        for (Path p : jar) {
            if (p.toString().equals("target")) {
                return true;
            }
        }
        return false;
    }

    /** {@code java <daemon flags> -jar <jar> daemon}. */
    public List<String> daemonCommand() {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(DAEMON_JVM);
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.add("daemon");
        return cmd;
    }
}
