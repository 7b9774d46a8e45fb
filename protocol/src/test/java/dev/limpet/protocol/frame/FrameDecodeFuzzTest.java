package dev.limpet.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing (Jazzer) of {@link Frame#decode}: any bytes (a WebSocket binary message, a
 * frame from a worker) either decode to a frame that re-encodes to exactly those bytes, or are
 * refused with a {@link FrameException}. The seeded loop in {@link FrameFuzzTest} covers the same
 * ground without coverage guidance.
 */
class FrameDecodeFuzzTest {
    @FuzzTest
    void decodesToAFrameThatReEncodesToTheSameBytesOrRefuses(byte[] input) {
        Frame frame;
        try {
            frame = Frame.decode(input);
        } catch (FrameException refused) {
            return;
        }
        byte[] again = Frame.encode(frame.kind(), frame.streamId(), frame.offset(), frame.payload());
        assertThat(again).isEqualTo(input);
        assertThat(Frame.decode(again)).isEqualTo(frame);
        // A frame inside a larger buffer decodes the same, as a view.
        byte[] padded = new byte[input.length + 3];
        System.arraycopy(input, 0, padded, 1, input.length);
        Frame view = Frame.decode(padded, 1, input.length);
        assertThat(view).isEqualTo(frame);
        assertThat(Arrays.copyOfRange(view.array(), view.payloadStart(), view.payloadStart() + view.payloadLength()))
                .isEqualTo(frame.payload());
    }
}
