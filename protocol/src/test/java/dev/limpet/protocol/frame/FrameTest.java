package dev.limpet.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class FrameTest {
    static final String LONGEST_ID = "a".repeat(Frame.MAX_STREAM_ID);

    static String idFor(FrameKind kind) {
        return kind.hasStream() ? "k3x9q2" : "";
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    // ---- round trips ----

    static Stream<Object[]> everyKindWithOffsetsAndPayloads() {
        long[] offsets = {0, 1, 255, 256, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x0102030405060708L};
        byte[][] payloads = {new byte[0], bytes("x"), bytes("héllo\r\n"), random(1 << 20, 7)};
        return Arrays.stream(FrameKind.values()).flatMap(k -> Arrays.stream(offsets).boxed()
                .flatMap(o -> Arrays.stream(payloads).map(p -> new Object[] {k, o, p})));
    }

    @ParameterizedTest(name = "{0} @{1}")
    @MethodSource("everyKindWithOffsetsAndPayloads")
    void everyKindSurvivesARoundTripWithAnyOffsetAndPayload(FrameKind kind, long offset, byte[] payload) {
        String id = idFor(kind);
        byte[] encoded = Frame.encode(kind, id, offset, payload);

        Frame f = Frame.decode(encoded);

        assertThat(f.kind()).isEqualTo(kind);
        assertThat(f.streamId()).isEqualTo(id);
        assertThat(f.offset()).isEqualTo(offset);
        assertThat(f.payloadLength()).isEqualTo(payload.length);
        assertThat(f.payload()).isEqualTo(payload);
        assertThat(f.array()).isSameAs(encoded);
        assertThat(f.payloadStart()).isEqualTo(Frame.headerLength(id.length()));
        assertThat(encoded).hasSize(Frame.headerLength(id.length()) + payload.length);
        assertThat(Frame.encode(f.kind(), f.streamId(), f.offset(), f.payload())).isEqualTo(encoded);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "Z", "0", "k3x9q2", "A.b_c:d-e", "._:-", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
    void everyValidStreamIdSurvivesARoundTrip(String id) {
        for (FrameKind kind : FrameKind.values()) {
            if (!kind.hasStream()) {
                continue;
            }
            Frame f = Frame.decode(Frame.encode(kind, id, 42, bytes("p")));
            assertThat(f.streamId()).isEqualTo(id);
            assertThat(f.payloadText()).isEqualTo("p");
        }
    }

    @Test
    void theEncodedLayoutIsKindIdLengthIdBigEndianOffsetPayload() {
        byte[] encoded = Frame.encode(FrameKind.OUTPUT, "ab", 0x0102030405060708L, new byte[] {9, 10});
        assertThat(encoded).containsExactly(1, 2, 'a', 'b', 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
    }

    @Test
    void encodeWithARangeTakesOnlyThatPartOfThePayload() {
        byte[] payload = bytes("0123456789");
        Frame f = Frame.decode(Frame.encode(FrameKind.INPUT, "s", 0, payload, 3, 4));
        assertThat(f.payloadText()).isEqualTo("3456");
    }

    @Test
    void encodeWithARangeOutsideThePayloadIsRefused() {
        assertThatThrownBy(() -> Frame.encode(FrameKind.INPUT, "s", 0, new byte[4], 2, 3))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void aControlFrameCarriesItsJsonAsUtf8WithNoStreamAndOffsetZero() {
        String json = "{\"type\":\"hello\",\"name\":\"ünïcödé ✓\"}";
        Frame f = Frame.decode(Frame.control(json));
        assertThat(f.kind()).isEqualTo(FrameKind.CONTROL);
        assertThat(f.streamId()).isEmpty();
        assertThat(f.offset()).isZero();
        assertThat(f.payloadText()).isEqualTo(json);
    }

    @Test
    void putHeaderWritesTheSameBytesAsTheHeaderEncodeBuilds() {
        byte[] payload = bytes("data");
        byte[] encoded = Frame.encode(FrameKind.SNAPSHOT, "s.1", -5, payload);
        ByteBuffer out = ByteBuffer.allocate(Frame.headerLength(3));
        Frame.putHeader(out, FrameKind.SNAPSHOT, "s.1", -5);
        assertThat(out.hasRemaining()).isFalse();
        assertThat(out.array()).isEqualTo(Arrays.copyOf(encoded, Frame.headerLength(3)));
    }

    @Test
    void putHeaderRefusesAnInvalidStreamId() {
        assertThatThrownBy(() -> Frame.putHeader(ByteBuffer.allocate(100), FrameKind.OUTPUT, "", 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void kindsKeepTheirWireNumbers() {
        assertThat(Arrays.stream(FrameKind.values()).mapToInt(FrameKind::wire)).containsExactly(1, 2, 3, 4, 5, 6);
        assertThat(Arrays.stream(FrameKind.values()).filter(k -> !k.hasStream())).containsExactly(FrameKind.CONTROL);
        for (FrameKind k : FrameKind.values()) {
            assertThat(FrameKind.fromWire(k.wire())).isSameAs(k);
        }
        assertThat(FrameKind.fromWire(0)).isNull();
        assertThat(FrameKind.fromWire(7)).isNull();
        assertThat(FrameKind.fromWire(-1)).isNull();
        assertThat(FrameKind.fromWire(255)).isNull();
    }

    // ---- views ----

    @Test
    void aFrameDecodedInsideALargerArrayIsAViewOfThatArray() {
        byte[] encoded = Frame.encode(FrameKind.OUTPUT, "sess", 1234, bytes("payload"));
        byte[] big = new byte[encoded.length + 20];
        Arrays.fill(big, (byte) 0x7f);
        System.arraycopy(encoded, 0, big, 13, encoded.length);

        Frame f = Frame.decode(big, 13, encoded.length);

        assertThat(f.array()).isSameAs(big);
        assertThat(f.payloadStart()).isEqualTo(13 + Frame.headerLength(4));
        assertThat(new String(big, f.payloadStart(), f.payloadLength(), StandardCharsets.UTF_8)).isEqualTo("payload");
        assertThat(f.payloadText()).isEqualTo("payload");
        assertThat(f.offset()).isEqualTo(1234);
        assertThat(f.ownsArray()).isFalse();
        // no copy: a change to the array shows through the frame
        big[f.payloadStart()] = 'P';
        assertThat(f.payloadText()).isEqualTo("Payload");
    }

    @Test
    void encodedReturnsExactlyTheEncodedBytesReadOnlyWithoutCopying() {
        byte[] encoded = Frame.encode(FrameKind.OUTPUT, "sess", 99, bytes("abc"));
        byte[] big = new byte[encoded.length + 10];
        System.arraycopy(encoded, 0, big, 4, encoded.length);
        Frame f = Frame.decode(big, 4, encoded.length);

        ByteBuffer b = f.encoded();

        assertThat(b.isReadOnly()).isTrue();
        assertThat(b.position()).isZero();
        assertThat(b.remaining()).isEqualTo(encoded.length);
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        assertThat(out).isEqualTo(encoded);
        big[4] = 2; // shows through: a view, not a copy
        assertThat(f.encoded().get(0)).isEqualTo((byte) 2);
    }

    @Test
    void aFrameOwnsItsArrayOnlyWhenItFillsItFromIndexZero() {
        byte[] encoded = Frame.encode(FrameKind.INPUT, "s", 0, bytes("abc"));
        assertThat(Frame.decode(encoded).ownsArray()).isTrue();
        assertThat(Frame.decode(encoded, 0, encoded.length).ownsArray()).isTrue();

        byte[] tail = Arrays.copyOf(encoded, encoded.length + 1);
        assertThat(Frame.decode(tail, 0, encoded.length).ownsArray()).isFalse();

        byte[] head = new byte[encoded.length + 1];
        System.arraycopy(encoded, 0, head, 1, encoded.length);
        assertThat(Frame.decode(head, 1, encoded.length).ownsArray()).isFalse();
    }

    @Test
    void framesWithTheSameContentAreEqualWhereverTheyLie() {
        byte[] encoded = Frame.encode(FrameKind.OUTPUT, "s", 5, bytes("abc"));
        byte[] big = new byte[encoded.length + 3];
        System.arraycopy(encoded, 0, big, 3, encoded.length);
        Frame a = Frame.decode(encoded);
        Frame b = Frame.decode(big, 3, encoded.length);
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(Frame.decode(Frame.encode(FrameKind.OUTPUT, "s", 6, bytes("abc"))));
        assertThat(a).isNotEqualTo(Frame.decode(Frame.encode(FrameKind.OUTPUT, "t", 5, bytes("abc"))));
        assertThat(a).isNotEqualTo(Frame.decode(Frame.encode(FrameKind.SNAPSHOT, "s", 5, bytes("abc"))));
        assertThat(a).isNotEqualTo(Frame.decode(Frame.encode(FrameKind.OUTPUT, "s", 5, bytes("abd"))));
        assertThat(a.toString()).contains("OUTPUT", "s", "@5", "3 bytes");
    }

    // ---- malformed input ----

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 9})
    void anArrayShorterThanTheFixedHeaderIsTooShort(int length) {
        byte[] b = new byte[length];
        if (length > 0) {
            b[0] = 4; // CONTROL
        }
        assertThatThrownBy(() -> Frame.decode(b))
                .isInstanceOf(FrameException.class)
                .hasMessageContaining("too short")
                .hasMessageContaining(length + " bytes");
    }

    @Test
    void aFrameShorterThanItsStreamIdIsTooShort() {
        byte[] encoded = Frame.encode(FrameKind.OUTPUT, "abcdef", 1, new byte[0]);
        for (int len = Frame.FIXED_HEADER; len < encoded.length; len++) {
            int l = len;
            assertThatThrownBy(() -> Frame.decode(encoded, 0, l))
                    .isInstanceOf(FrameException.class)
                    .hasMessageContaining("too short");
        }
    }

    static IntStream unknownKinds() {
        return IntStream.concat(IntStream.of(0), IntStream.rangeClosed(7, 255));
    }

    @ParameterizedTest
    @MethodSource("unknownKinds")
    void anUnknownKindIsRefused(int wire) {
        byte[] b = Frame.encode(FrameKind.OUTPUT, "s", 0, new byte[3]);
        b[0] = (byte) wire;
        assertThatThrownBy(() -> Frame.decode(b))
                .isInstanceOf(FrameException.class)
                .hasMessage("unknown frame kind " + wire);
    }

    @ParameterizedTest
    @ValueSource(ints = {65, 66, 100, 127, 128, 255})
    void aStreamIdLongerThan64BytesIsRefused(int idLength) {
        byte[] b = new byte[Frame.FIXED_HEADER + idLength];
        b[0] = 1;
        b[1] = (byte) idLength;
        Arrays.fill(b, 2, 2 + idLength, (byte) 'a');
        assertThatThrownBy(() -> Frame.decode(b))
                .isInstanceOf(FrameException.class)
                .hasMessageContaining("longer than 64")
                .hasMessageContaining(String.valueOf(idLength));
    }

    @Test
    void aStreamIdOfExactly64BytesIsAccepted() {
        assertThat(Frame.decode(Frame.encode(FrameKind.OUTPUT, LONGEST_ID, 0, new byte[0])).streamId()).isEqualTo(LONGEST_ID);
    }

    @Test
    void aControlFrameWithAStreamIdIsRefused() {
        byte[] b = Frame.encode(FrameKind.OUTPUT, "s", 0, new byte[0]);
        b[0] = (byte) FrameKind.CONTROL.wire();
        assertThatThrownBy(() -> Frame.decode(b))
                .isInstanceOf(FrameException.class)
                .hasMessage("CONTROL frame with a stream id");
    }

    @ParameterizedTest
    @EnumSource(value = FrameKind.class, names = "CONTROL", mode = EnumSource.Mode.EXCLUDE)
    void aStreamFrameWithoutAStreamIdIsRefused(FrameKind kind) {
        byte[] b = Frame.control("{}");
        b[0] = (byte) kind.wire();
        assertThatThrownBy(() -> Frame.decode(b))
                .isInstanceOf(FrameException.class)
                .hasMessage(kind + " frame without a stream id");
    }

    static IntStream bytesOutsideTheIdAlphabet() {
        return IntStream.rangeClosed(0, 255).filter(b -> !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
                || b == '.' || b == '_' || b == ':' || b == '-'));
    }

    @ParameterizedTest
    @MethodSource("bytesOutsideTheIdAlphabet")
    void aStreamIdByteOutsideTheAlphabetIsRefused(int bad) {
        byte[] b = Frame.encode(FrameKind.OUTPUT, "abc", 0, new byte[2]);
        b[3] = (byte) bad;
        assertThatThrownBy(() -> Frame.decode(b))
                .isInstanceOf(FrameException.class)
                .hasMessage("stream id holds byte " + bad);
    }

    @Test
    void theIdAlphabetHasExactly66Bytes() {
        assertThat(bytesOutsideTheIdAlphabet().count()).isEqualTo(256 - 66);
    }

    @Test
    void boundsOutsideTheArrayAreRefused() {
        byte[] encoded = Frame.encode(FrameKind.OUTPUT, "s", 0, new byte[4]);
        int n = encoded.length;
        int[][] bounds = {{-1, n}, {0, -1}, {0, n + 1}, {1, n}, {n + 1, 0}, {Integer.MAX_VALUE, 1}, {1, Integer.MAX_VALUE},
                {Integer.MIN_VALUE, 0}, {0, Integer.MIN_VALUE}};
        for (int[] b : bounds) {
            assertThatThrownBy(() -> Frame.decode(encoded, b[0], b[1]))
                    .as("start %d length %d", b[0], b[1])
                    .isInstanceOf(FrameException.class)
                    .hasMessageContaining("outside the buffer");
        }
    }

    @Test
    void anEmptyRangeAtTheEndOfTheArrayIsTooShortNotOutOfBounds() {
        byte[] encoded = Frame.encode(FrameKind.OUTPUT, "s", 0, new byte[4]);
        assertThatThrownBy(() -> Frame.decode(encoded, encoded.length, 0))
                .isInstanceOf(FrameException.class)
                .hasMessageContaining("too short");
    }

    // ---- encode refuses invalid ids ----

    static Stream<Object[]> invalidIds() {
        return Stream.of(
                new Object[] {FrameKind.OUTPUT, ""},
                new Object[] {FrameKind.INPUT, ""},
                new Object[] {FrameKind.SNAPSHOT, ""},
                new Object[] {FrameKind.CREDIT, ""},
                new Object[] {FrameKind.CONTROL, "s"},
                new Object[] {FrameKind.OUTPUT, LONGEST_ID + "a"},
                new Object[] {FrameKind.OUTPUT, "a b"},
                new Object[] {FrameKind.OUTPUT, "a/b"},
                new Object[] {FrameKind.OUTPUT, "ä"},
                new Object[] {FrameKind.OUTPUT, "✓"},
                new Object[] {FrameKind.OUTPUT, "?"},
                new Object[] {FrameKind.OUTPUT, "a\n"},
                new Object[] {FrameKind.OUTPUT, "a\u0000"});
    }

    @ParameterizedTest(name = "{0} \"{1}\"")
    @MethodSource("invalidIds")
    void encodeRefusesAnInvalidStreamId(FrameKind kind, String id) {
        assertThatThrownBy(() -> Frame.encode(kind, id, 0, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid stream id");
    }

    @Test
    void encodeRefusesNullKindOrId() {
        assertThatThrownBy(() -> Frame.encode(null, "s", 0, new byte[0])).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Frame.encode(FrameKind.OUTPUT, null, 0, new byte[0])).isInstanceOf(NullPointerException.class);
    }
}
