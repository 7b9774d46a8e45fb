package dev.limpet.bench.micro;

import dev.limpet.terminal.output.OutputLog;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** The session output ring: 4 KiB appends and 64 KiB replay reads on a full 1 MiB log, against plain copies. */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class OutputLogBenchmark {
    public static final int APPEND = 4096;
    public static final int READ = 64 * 1024;
    private static final int RING = 1 << 20;

    private final byte[] chunk = new byte[APPEND];
    private final byte[] ring = new byte[RING];
    private OutputLog log;
    private int pos;

    @Setup
    public void setup() {
        for (int i = 0; i < chunk.length; i++) {
            chunk[i] = (byte) ('a' + i % 26);
        }
        log = new OutputLog(RING);
        for (int i = 0; i < 2 * RING / APPEND; i++) {
            log.append(chunk, 0, chunk.length);
        }
    }

    @Benchmark
    public long append4k() {
        return log.append(chunk, 0, chunk.length);
    }

    /** The floor for append: copying the same bytes into a ring without offsets or locks. */
    @Benchmark
    public int append4kArraycopy() {
        System.arraycopy(chunk, 0, ring, pos, APPEND);
        pos = (pos + APPEND) % RING;
        return pos;
    }

    @Benchmark
    public OutputLog.Slice read64k() {
        return log.read(log.endOffset() - READ, READ);
    }

    /** The floor for read: a fresh array filled from the ring. */
    @Benchmark
    public byte[] read64kArraycopy() {
        byte[] out = new byte[READ];
        System.arraycopy(ring, RING - READ, out, 0, READ);
        return out;
    }
}
