package dev.limpet.bench.proc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipFile;

/**
 * A private copy of the app jar for this run: others may rebuild {@code app/target/limpet.jar}
 * while the benchmark runs (it is briefly missing or truncated then), so the copy is taken once a
 * readable jar is there, and every daemon of the run starts from it, with the daemon's and the
 * workers' caches beside it when the launcher's are fresh (a person's daemon and workers start
 * from them too).
 */
public final class LimpetJar {
    /** The daemon's AOT cache, beside its jar, as {@code ./limpet} trains it. */
    public static final String DAEMON_CACHE = "limpet-daemon.aot";
    /** The workers' class-data archive: a daemon hands it to its workers with their copy of the jar. */
    public static final String WORKER_CACHE = "limpet-worker.jsa";

    private LimpetJar() {}

    /** The daemon's AOT cache beside {@code jar} when it is newer than the jar (what the launcher would pass), else null. */
    public static Path daemonCache(Path jar) {
        Path cache = jar.resolveSibling(DAEMON_CACHE);
        return newer(cache, jar) ? cache : null;
    }

    private static boolean newer(Path cache, Path jar) {
        try {
            return Files.isRegularFile(cache) && Files.getLastModifiedTime(cache).compareTo(Files.getLastModifiedTime(jar)) > 0;
        } catch (IOException e) {
            return false;
        }
    }

    public static Path privateCopy(Path jar, Path dir) throws IOException, InterruptedException {
        Path copy = dir.resolve("limpet.jar");
        IOException last = null;
        for (int attempt = 0; attempt < 60; attempt++) {
            try {
                if (Files.isRegularFile(jar)) {
                    // Times kept: the caches go with their jar, as the launcher passes them (newer than the jar).
                    List<String> fresh = Stream.of(DAEMON_CACHE, WORKER_CACHE).filter(c -> newer(jar.resolveSibling(c), jar)).toList();
                    Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
                    for (String cache : List.of(DAEMON_CACHE, WORKER_CACHE)) {
                        Files.deleteIfExists(copy.resolveSibling(cache));
                        if (fresh.contains(cache)) {
                            Files.copy(jar.resolveSibling(cache), copy.resolveSibling(cache), StandardCopyOption.COPY_ATTRIBUTES);
                        }
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
