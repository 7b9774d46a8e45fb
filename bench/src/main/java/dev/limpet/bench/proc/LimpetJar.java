package dev.limpet.bench.proc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipFile;

/**
 * A private copy of the app jar for this run: others may rebuild {@code app/target/limpet.jar}
 * while the benchmark runs (it is briefly missing or truncated then), so the copy is taken once a
 * readable jar is there, and every daemon of the run starts from it, with the daemon's AOT cache
 * beside it when the launcher's is fresh (a person's daemon starts from it too).
 */
public final class LimpetJar {
    /** The daemon's AOT cache, beside its jar, as {@code ./limpet} trains it. */
    public static final String DAEMON_CACHE = "limpet-daemon.aot";

    private LimpetJar() {}

    /** The daemon's AOT cache beside {@code jar} when it is newer than the jar (what the launcher would pass), else null. */
    public static Path daemonCache(Path jar) {
        Path cache = jar.resolveSibling(DAEMON_CACHE);
        try {
            return Files.isRegularFile(cache) && Files.getLastModifiedTime(cache).compareTo(Files.getLastModifiedTime(jar)) > 0 ? cache : null;
        } catch (IOException e) {
            return null;
        }
    }

    public static Path privateCopy(Path jar, Path dir) throws IOException, InterruptedException {
        Path copy = dir.resolve("limpet.jar");
        IOException last = null;
        for (int attempt = 0; attempt < 60; attempt++) {
            try {
                if (Files.isRegularFile(jar)) {
                    Path cache = jar.resolveSibling(DAEMON_CACHE);
                    boolean fresh = Files.isRegularFile(cache) && Files.getLastModifiedTime(cache).compareTo(Files.getLastModifiedTime(jar)) > 0;
                    // Times kept: the daemon's AOT cache goes with its jar, as the launcher passes it (newer than the jar).
                    Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
                    Files.deleteIfExists(copy.resolveSibling(DAEMON_CACHE));
                    if (fresh) {
                        Files.copy(cache, copy.resolveSibling(DAEMON_CACHE), StandardCopyOption.COPY_ATTRIBUTES);
                    }
                    try (ZipFile zip = new ZipFile(copy.toFile())) {
                        if (zip.getEntry("dev/limpet/app/Main.class") != null) {
                            return copy;
                        }
                    }
                }
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(2000);
        }
        throw new IOException("no readable limpet jar at " + jar + " after 2 minutes (build it with ./limpet build)", last);
    }
}
