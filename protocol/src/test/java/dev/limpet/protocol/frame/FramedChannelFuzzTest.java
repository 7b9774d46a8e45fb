package dev.limpet.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

/**
 * Coverage-guided fuzzing (Jazzer) of {@link FramedChannel#readFrame} over a byte stream as a Unix
 * socket delivers it: whatever the bytes and however the reads are cut, reading frames ends with
 * {@link EOFException} (the stream ended) or {@link FrameException} (the stream is bad), and every
 * frame read before re-encodes, length prefix included, to exactly the bytes it was read from.
 *
 * <p>Input layout: byte 0 chooses the largest read (1–256 bytes; cut by a random seeded from it), byte
 * 1's low bit whether a hello line comes first (as on the worker link); the rest is the stream.
 */
class FramedChannelFuzzTest {
    static final int MAX_FRAME = 64 * 1024;
    static final int MAX_LINE = 1024;

    @FuzzTest
    void readsFramesThatReEncodeToTheStreamOrStopsWithFrameOrEofException(byte[] input) throws IOException {
        if (input.length < 2) {
            return;
        }
        int maxRead = 1 + (input[0] & 0xff);
        boolean lineFirst = (input[1] & 1) == 1;
        byte[] stream = Arrays.copyOfRange(input, 2, input.length);
        MemoryChannel channel = new MemoryChannel(stream, new Random(input[0]), 1, maxRead);
        FramedChannel framed = new FramedChannel(channel, MAX_FRAME, MAX_LINE);
        ByteArrayOutputStream consumed = new ByteArrayOutputStream();
        try {
            if (lineFirst) {
                String line = framed.readLine();
                assertThat(line).doesNotContain("\n");
                consumed.write(line.getBytes(StandardCharsets.UTF_8));
                consumed.write('\n');
            }
            while (true) {
                Frame f = framed.readFrame();
                assertThat(f.ownsArray()).isTrue();
                byte[] encoded = Frame.encode(f.kind(), f.streamId(), f.offset(), f.payload());
                consumed.write(ByteBuffer.allocate(4).putInt(encoded.length).array());
                consumed.write(encoded);
            }
        } catch (EOFException | FrameException expected) {
            // the stream ended or was refused: what was read before must be what was sent
        }
        byte[] read = consumed.toByteArray();
        if (!lineFirst) {
            assertThat(read).isEqualTo(Arrays.copyOf(stream, read.length));
        } else if (read.length > 0) {
            // A line may hold invalid UTF-8 (decoded with replacements): compare the frames only.
            int nl = indexOf(stream, (byte) '\n');
            int lineLen = indexOf(read, (byte) '\n');
            assertThat(Arrays.copyOfRange(read, lineLen + 1, read.length))
                    .isEqualTo(Arrays.copyOfRange(stream, nl + 1, nl + 1 + read.length - lineLen - 1));
        }
    }

    private static int indexOf(byte[] b, byte value) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == value) {
                return i;
            }
        }
        return -1;
    }
}
