package dev.limpet.vt;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The recorded program outputs under src/test/resources/recordings, named NAME-COLSxROWS.bin. */
final class Recordings {
    static final Path DIR = Path.of("src/test/resources/recordings").toAbsolutePath();
    private static final Pattern SIZE = Pattern.compile("-(\\d+)x(\\d+)\\.bin$");

    record Recording(String name, Path file, int cols, int rows, byte[] data) {
    }

    private Recordings() {
    }

    static List<Recording> all() throws IOException {
        try (Stream<Path> files = Files.list(DIR)) {
            return files.filter(p -> p.toString().endsWith(".bin")).sorted().map(Recordings::load).toList();
        }
    }

    private static Recording load(Path p) {
        Matcher m = SIZE.matcher(p.getFileName().toString());
        if (!m.find()) {
            throw new IllegalStateException("recording without size in its name: " + p);
        }
        try {
            return new Recording(p.getFileName().toString(), p, Integer.parseInt(m.group(1)),
                    Integer.parseInt(m.group(2)), Files.readAllBytes(p));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
