package dev.limpet.bench.figures;

import dev.limpet.bench.BenchContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** {@code --profile}: the daemon, its pty-workers and the programs they run record with JFR. */
final class Profiling {
    private Profiling() {}

    /**
     * The environment that makes every JVM the daemon starts (its pty-workers and Java test
     * programs too) record with JFR into {@code bench/target/jfr/NAME/PID.jfr}, written at exit.
     */
    static Map<String, String> jfr(BenchContext ctx, String name) throws IOException {
        Path dir = ctx.options.repo().resolve("bench/target/jfr/" + name);
        Files.createDirectories(dir);
        ctx.log("recording the daemon and its workers with JFR into " + dir);
        return Map.of("JAVA_TOOL_OPTIONS", "-XX:StartFlightRecording=settings=profile,dumponexit=true,filename=" + dir + "/%p.jfr");
    }
}
