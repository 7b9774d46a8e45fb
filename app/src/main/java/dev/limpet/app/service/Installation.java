package dev.limpet.app.service;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * This limpet: the JDK it runs on and the jar it runs from, and how a service or a launcher starts
 * its daemon and its verbs the way {@code ./limpet} does.
 */
public record Installation(Path java, Path jar) {
    /**
     * The JVM flags of the long-lived daemon. C1 only, as the workers and verbs: the daemon moves
     * bytes between sockets and answers small requests, and C2 compiling through a start or a
     * recovery of many sessions took more CPU than it ever gave back (docs/benchmarks.md: the same
     * flood and echo figures, less CPU and memory, recovery sooner). Its AOT cache is mapped where it was dumped
     * ({@code ArchiveRelocationMode=0}; the JVM relocates it only when that address is taken): pages
     * it never touches stay out of memory and the rest stay clean, ~7 MB less PSS idle than the
     * default relocation, which rewrites every page.
     */
    public static final List<String> DAEMON_JVM = List.of("--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Xms8m", "-XX:TrimNativeHeapInterval=5000", "-XX:+UnlockDiagnosticVMOptions",
            "-XX:ArchiveRelocationMode=0");
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

    /**
     * How a service starts the daemon: through the launcher {@code limpet install} wrote for this
     * jar when there is one (it starts from the daemon's AOT cache while that is fresh: a restart
     * recovers its sessions with ~40 % less CPU), else {@code java <daemon flags> -jar <jar> daemon}.
     */
    public List<String> daemonCommand() {
        Optional<Path> launcher = installedLauncher();
        if (launcher.isPresent()) {
            return List.of(launcher.get().toString(), "daemon");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(DAEMON_JVM);
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.add("daemon");
        return cmd;
    }

    /**
     * {@code DIR/bin/limpet} for a jar at {@code DIR/lib/limpet/limpet.jar}, when it is the launcher
     * {@code limpet install} wrote for exactly this jar.
     */
    Optional<Path> installedLauncher() {
        Path lib = jar.toAbsolutePath().getParent();
        if (lib == null || lib.getParent() == null || lib.getParent().getParent() == null
                || !lib.getFileName().toString().equals("limpet") || !lib.getParent().getFileName().toString().equals("lib")) {
            return Optional.empty();
        }
        Path launcher = lib.getParent().getParent().resolve("bin").resolve("limpet");
        try {
            if (!Files.isRegularFile(launcher, LinkOption.NOFOLLOW_LINKS) || !Files.isExecutable(launcher)
                    || Files.size(launcher) > 64 * 1024) {
                return Optional.empty();
            }
            String text = Files.readString(launcher);
            return text.contains(InstallCommand.LAUNCHER_MARK) && text.contains("jar=" + InstallCommand.shellQuote(jar.toAbsolutePath().toString()))
                    ? Optional.of(launcher) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
