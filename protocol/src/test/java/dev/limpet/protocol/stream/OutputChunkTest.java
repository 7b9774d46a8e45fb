package dev.limpet.protocol.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class OutputChunkTest {
    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] contentOf(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    static String text(OutputChunk c) {
        return new String(c.bytes(), StandardCharsets.UTF_8);
    }

    // ---- construction and accessors ----

    @Test
    void aChunkKnowsWhereItStartsAndEnds() {
        OutputChunk c = OutputChunk.of(bytes("hello"), 15);
        assertThat(c.startOffset()).isEqualTo(10);
        assertThat(c.endOffset()).isEqualTo(15);
        assertThat(c.length()).isEqualTo(5);
        assertThat(c.isEmpty()).isFalse();
        assertThat(c.toString()).isEqualTo("OutputChunk[10..15]");
        assertThat(OutputChunk.of(new byte[0], 7).isEmpty()).isTrue();
    }

    @Test
    void aChunkCannotStartBeforeOffsetZero() {
        assertThatThrownBy(() -> OutputChunk.of(bytes("hello"), 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("end offset 4");
        assertThat(OutputChunk.of(bytes("hello"), 5).startOffset()).isZero();
    }

    @Test
    void aRangeOutsideTheArrayIsRefused() {
        assertThatThrownBy(() -> OutputChunk.of(new byte[4], 2, 3, 100)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> OutputChunk.of(new byte[4], -1, 1, 100)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void viewIsAReadOnlyWindowOnTheSharedArray() {
        byte[] array = bytes("xxhelloxx");
        OutputChunk c = OutputChunk.of(array, 2, 5, 5);
        ByteBuffer v = c.view();
        assertThat(v.isReadOnly()).isTrue();
        assertThat(v.position()).isZero();
        assertThat(contentOf(v)).isEqualTo(bytes("hello"));
        assertThat(c.array()).isSameAs(array);
        assertThat(c.arrayOffset()).isEqualTo(2);
        array[2] = 'H'; // not copied
        assertThat(contentOf(c.view())).isEqualTo(bytes("Hello"));
    }

    @Test
    void bytesReturnsTheArrayItselfOnlyWhenItIsExactlyTheChunk() {
        byte[] exact = bytes("hello");
        assertThat(OutputChunk.of(exact, 5).bytes()).isSameAs(exact);

        byte[] larger = bytes("xxhelloxx");
        byte[] copy = OutputChunk.of(larger, 2, 5, 5).bytes();
        assertThat(copy).isNotSameAs(larger).isEqualTo(bytes("hello"));
        assertThat(OutputChunk.of(larger, 0, 5, 5).bytes()).isEqualTo(bytes("xxhel"));
    }

    @Test
    void chunksWithTheSameBytesAndEndAreEqualWhereverTheBytesLie() {
        OutputChunk a = OutputChunk.of(bytes("hello"), 5);
        OutputChunk b = OutputChunk.of(bytes("--hello--"), 2, 5, 5);
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(OutputChunk.of(bytes("hello"), 6));
        assertThat(a).isNotEqualTo(OutputChunk.of(bytes("hellO"), 5));
        assertThat(a).isNotEqualTo("hello");
    }

    // ---- after ----

    @Test
    void aChunkThatEndsAtOrBeforeThePassedEndIsDroppedWhole() {
        OutputChunk c = OutputChunk.of(bytes("hello"), 15);
        assertThat(c.after(15)).isNull();
        assertThat(c.after(16)).isNull();
        assertThat(c.after(Long.MAX_VALUE)).isNull();
    }

    @Test
    void aChunkThatStartsAtOrAfterThePassedEndIsKeptAsTheSameInstance() {
        OutputChunk c = OutputChunk.of(bytes("hello"), 15);
        assertThat(c.after(10)).isSameAs(c);
        assertThat(c.after(9)).isSameAs(c);
        assertThat(c.after(0)).isSameAs(c);
        assertThat(c.after(-1)).isSameAs(c);
    }

    @Test
    void aChunkThatOverlapsThePassedEndIsTrimmed() {
        byte[] array = bytes("hello");
        OutputChunk c = OutputChunk.of(array, 15);
        for (int from = 11; from < 15; from++) {
            OutputChunk t = c.after(from);
            assertThat(t.startOffset()).isEqualTo(from);
            assertThat(t.endOffset()).isEqualTo(15);
            assertThat(t.length()).isEqualTo(15 - from);
            assertThat(text(t)).isEqualTo("hello".substring(from - 10));
            assertThat(t.array()).as("a view, not a copy").isSameAs(array);
            assertThat(t.arrayOffset()).isEqualTo(from - 10);
        }
    }

    @Test
    void aTrimmedViewOfAViewKeepsTheRightBytes() {
        OutputChunk c = OutputChunk.of(bytes("..0123456789.."), 2, 10, 110);
        OutputChunk t = c.after(103).after(105);
        assertThat(text(t)).isEqualTo("56789");
        assertThat(t.startOffset()).isEqualTo(105);
        assertThat(contentOf(t.view())).isEqualTo(bytes("56789"));
    }

    @Test
    void anEmptyChunkIsDroppedAtItsEndAndKeptBeforeIt() {
        OutputChunk empty = OutputChunk.of(new byte[0], 10);
        assertThat(empty.after(10)).isNull();
        assertThat(empty.after(9)).isSameAs(empty);
    }

    // ---- frames ----

    @Test
    void frameEncodesAnOutputFrameWithTheEndOffsetAndTheBytes() {
        OutputChunk c = OutputChunk.of(bytes("--hello--"), 2, 5, 1005);
        ByteBuffer b = c.frame("k3x9q2");
        assertThat(b.isReadOnly()).isTrue();
        assertThat(b.remaining()).isEqualTo(c.frameLength("k3x9q2"));

        Frame f = Frame.decode(contentOf(b));
        assertThat(f.kind()).isEqualTo(FrameKind.OUTPUT);
        assertThat(f.streamId()).isEqualTo("k3x9q2");
        assertThat(f.offset()).isEqualTo(1005);
        assertThat(f.payload()).isEqualTo(bytes("hello"));
        assertThat(contentOf(b)).isEqualTo(Frame.encode(FrameKind.OUTPUT, "k3x9q2", 1005, bytes("hello")));
    }

    @Test
    void frameIsEncodedOnceAndSharedByCallersAskingForTheSameStream() {
        byte[] array = bytes("hello");
        OutputChunk c = OutputChunk.of(array, 5);
        ByteBuffer first = c.frame("s");
        array[0] = 'J'; // a re-encoding would see this; the shared encoding does not
        ByteBuffer second = c.frame("s");
        assertThat(second).isEqualTo(first);
        assertThat(Frame.decode(contentOf(second)).payloadText()).isEqualTo("hello");
        // each caller gets its own position: reading one does not consume the other
        second.get(new byte[second.remaining()]);
        assertThat(c.frame("s").remaining()).isEqualTo(first.remaining());
    }

    @Test
    void aFrameForAnotherStreamIsEncodedForThatStream() {
        OutputChunk c = OutputChunk.of(bytes("hello"), 5);
        c.frame("a");
        Frame f = Frame.decode(contentOf(c.frame("other")));
        assertThat(f.streamId()).isEqualTo("other");
        assertThat(f.payloadText()).isEqualTo("hello");
        assertThat(Frame.decode(contentOf(c.frame("a"))).streamId()).isEqualTo("a");
    }

    @Test
    void frameRefusesAnInvalidStreamId() {
        OutputChunk c = OutputChunk.of(bytes("hello"), 5);
        assertThatThrownBy(() -> c.frame("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.frame("a b")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void frameOfATrimmedChunkCarriesOnlyItsBytes() {
        OutputChunk t = OutputChunk.of(bytes("hello"), 15).after(12);
        Frame f = Frame.decode(contentOf(t.frame("s")));
        assertThat(f.offset()).isEqualTo(15);
        assertThat(f.payloadText()).isEqualTo("llo");
    }

    // ---- fromFrame ----

    @Test
    void fromFrameOfAnOutputFrameIsAViewOfItsPayload() {
        byte[] encoded = Frame.encode(FrameKind.OUTPUT, "s", 42, bytes("hello"));
        Frame f = Frame.decode(encoded);
        OutputChunk c = OutputChunk.fromFrame(f);
        assertThat(c.endOffset()).isEqualTo(42);
        assertThat(c.startOffset()).isEqualTo(37);
        assertThat(text(c)).isEqualTo("hello");
        assertThat(c.array()).isSameAs(encoded);
        assertThat(c.arrayOffset()).isEqualTo(f.payloadStart());
    }

    @Test
    void fromFrameOfAFrameThatOwnsItsArrayPassesTheFrameOnWithoutACopy() {
        byte[] encoded = Frame.encode(FrameKind.OUTPUT, "k3x9q2", 42, bytes("hello"));
        OutputChunk c = OutputChunk.fromFrame(Frame.decode(encoded));

        ByteBuffer frame = c.frame("k3x9q2");
        assertThat(contentOf(frame)).isEqualTo(encoded);
        // the very array: a change to it shows through the frame handed out
        encoded[encoded.length - 1] = '!';
        assertThat(contentOf(c.frame("k3x9q2"))).isEqualTo(encoded);
        assertThat(Frame.decode(contentOf(c.frame("k3x9q2"))).payloadText()).isEqualTo("hell!");
    }

    @Test
    void fromFrameForAnotherStreamIdEncodesANewFrame() {
        byte[] encoded = Frame.encode(FrameKind.OUTPUT, "worker-1", 42, bytes("hello"));
        OutputChunk c = OutputChunk.fromFrame(Frame.decode(encoded));
        Frame f = Frame.decode(contentOf(c.frame("k3x9q2")));
        assertThat(f.streamId()).isEqualTo("k3x9q2");
        assertThat(f.offset()).isEqualTo(42);
        assertThat(f.payloadText()).isEqualTo("hello");
    }

    @Test
    void fromFrameOfAFrameInsideALargerArrayEncodesItsOwnFrame() {
        byte[] encoded = Frame.encode(FrameKind.OUTPUT, "s", 42, bytes("hello"));
        byte[] big = new byte[encoded.length + 6];
        System.arraycopy(encoded, 0, big, 3, encoded.length);
        Frame f = Frame.decode(big, 3, encoded.length);
        OutputChunk c = OutputChunk.fromFrame(f);
        assertThat(text(c)).isEqualTo("hello");
        ByteBuffer frame = c.frame("s");
        assertThat(frame.remaining()).isEqualTo(encoded.length);
        assertThat(contentOf(frame)).isEqualTo(encoded);
    }

    @ParameterizedTest
    @EnumSource(value = FrameKind.class, names = "OUTPUT", mode = EnumSource.Mode.EXCLUDE)
    void fromFrameRefusesAnyKindButOutput(FrameKind kind) {
        byte[] encoded = kind.hasStream() ? Frame.encode(kind, "s", 5, bytes("x")) : Frame.control("{}");
        Frame f = Frame.decode(encoded);
        assertThatThrownBy(() -> OutputChunk.fromFrame(f))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not an OUTPUT frame");
    }

    @Test
    void fromFrameRefusesAnOutputFrameWhoseOffsetIsBeforeItsPayloadLength() {
        Frame f = Frame.decode(Frame.encode(FrameKind.OUTPUT, "s", 3, bytes("hello")));
        assertThatThrownBy(() -> OutputChunk.fromFrame(f)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void frameLengthIsTheSizeOfTheEncodedFrame() {
        OutputChunk c = OutputChunk.of(bytes("hello"), 5);
        for (String id : new String[] {"a", "k3x9q2", "a".repeat(64)}) {
            assertThat(c.frameLength(id)).isEqualTo(Frame.encode(FrameKind.OUTPUT, id, 5, bytes("hello")).length);
        }
    }
}
