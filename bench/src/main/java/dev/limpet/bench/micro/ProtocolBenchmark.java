package dev.limpet.bench.micro;

import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** The client protocol's hot paths: 16 KiB output frames out and in, and the keystroke message in. */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ProtocolBenchmark {
    public static final int PAYLOAD = 16 * 1024;
    private static final String SESSION = "k3x9q2";
    private static final String KEYSTROKE = "{\"type\":\"pty_input\",\"session_id\":\"k3x9q2\",\"data\":\"x\"}";

    private final byte[] payload = new byte[PAYLOAD];
    private byte[] encoded;
    private long offset;

    @Setup
    public void setup() {
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) ('a' + i % 26);
        }
        encoded = Frame.encode(FrameKind.OUTPUT, SESSION, PAYLOAD, payload, 0, PAYLOAD);
    }

    @Benchmark
    public byte[] encodeOutput16k() {
        offset += PAYLOAD;
        return Frame.encode(FrameKind.OUTPUT, SESSION, offset, payload, 0, PAYLOAD);
    }

    /** The floor: the frame's bytes copied into a fresh array. */
    @Benchmark
    public byte[] encodeOutput16kArraycopy() {
        byte[] out = new byte[encoded.length];
        System.arraycopy(payload, 0, out, encoded.length - PAYLOAD, PAYLOAD);
        return out;
    }

    @Benchmark
    public Frame decodeOutput16k() {
        return Frame.decode(encoded);
    }

    @Benchmark
    public ClientMessage decodeKeystroke() {
        return ProtocolCodec.decodeClient(KEYSTROKE);
    }

    @Benchmark
    public String encodeKeystroke() {
        return ProtocolCodec.encode(new ClientMessage.PtyInput(null, SESSION, "x"));
    }
}
