package dev.limpet.bench.micro;

import dev.limpet.vt.ScreenModel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The VT screen model: feeding 64 KiB of typical output (plain lines, coloured {@code ls}-like
 * lines, cursor moves, some UTF-8) into an 80×24 screen with 1000 lines of scrollback, and taking
 * a snapshot of a full screen and scrollback.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class VtBenchmark {
    public static final byte[] OUTPUT = sampleOutput(64 * 1024);

    private ScreenModel feedModel;
    private ScreenModel snapshotModel;

    @Setup
    public void setup() {
        feedModel = ScreenModel.create(80, 24, 1000);
        snapshotModel = ScreenModel.create(80, 24, 1000);
        for (int i = 0; i < 4; i++) {
            snapshotModel.feed(OUTPUT);
        }
    }

    @Benchmark
    public ScreenModel feed64k() {
        feedModel.feed(OUTPUT, 0, OUTPUT.length);
        return feedModel;
    }

    @Benchmark
    public byte[] snapshotFull() {
        return snapshotModel.snapshot();
    }

    static byte[] sampleOutput(int size) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(size + 256);
        int line = 0;
        while (out.size() < size) {
            String s = switch (line % 4) {
                case 0 -> "plain output line " + line + " with some words to wrap around the screen edge eventually ok\r\n";
                case 1 -> "\u001b[01;34mdirectory\u001b[0m  \u001b[01;32mscript.sh\u001b[0m  file-" + line + ".txt  \u001b[31mcore\u001b[0m\r\n";
                case 2 -> "\u001b[2K\r\u001b[1mprogress\u001b[22m [" + "#".repeat(line % 40) + "] " + line % 100 + "%\u001b[K\r\n";
                default -> "naïve café — ünïcödé ✓ 日本語 line " + line + "\r\n";
            };
            out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
            line++;
        }
        return out.toByteArray();
    }
}
