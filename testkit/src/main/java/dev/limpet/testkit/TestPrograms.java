package dev.limpet.testkit;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;

/** Command lines that run this module's tiny programs in a fresh, fast-starting JVM. */
public final class TestPrograms {
    private TestPrograms() {}

    /**
     * {@code [java, fast-start flags, -cp, <where main was loaded from>, main, args...]}, using the
     * JVM running the caller.
     */
    public static List<String> command(Class<?> main, String... args) {
        List<String> command = new ArrayList<>(List.of(
                javaExecutable().toString(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-cp", classpathOf(main).toString(), main.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /** {@code <java.home>/bin/java}. */
    public static Path javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** The directory or jar {@code type} was loaded from. */
    public static Path classpathOf(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            throw new IllegalStateException(type.getName() + " has no code source (loaded by the boot class loader?)");
        }
        try {
            return Path.of(source.getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("unusable code source " + source.getLocation(), e);
        }
    }
}
