package dev.limpet.bench.proc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipFile;

/**
 * A private copy of the app jar for this run: others may rebuild {@code app/target/limpet.jar}
 * while the benchmark runs (it is briefly missing or truncated then), so the copy is taken once a
 * readable jar is there, and every daemon of the run starts from it.
 */
public final class LimpetJar {
    private LimpetJar() {}

    public static Path privateCopy(Path jar, Path dir) throws IOException, InterruptedException {
        Path copy = dir.resolve("limpet.jar");
        IOException last = null;
        for (int attempt = 0; attempt < 60; attempt++) {
            try {
                if (Files.isRegularFile(jar)) {
                    Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
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
