package dev.limpet.daemon.websocket;

import static dev.limpet.daemon.websocket.ClientFrames.frame;
import static dev.limpet.daemon.websocket.ClientFrames.whole;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WsMessageReaderTest {
    private static final int TEXT = WsMessageReader.TEXT;
    private static final int BINARY = WsMessageReader.BINARY;
    private static final int CONT = WsMessageReader.CONTINUATION;

    /** What the reader handed on, as readable lines. */
    static final class Events implements WsMessageReader.Sink {
        final List<String> seen = new ArrayList<>();
        final List<byte[]> binaries = new ArrayList<>();

        @Override
        public void text(String message) {
            seen.add("text " + message);
        }

        @Override
        public void binary(ByteBuffer message) {
            byte[] b = new byte[message.remaining()];
            message.get(b);
            binaries.add(b);
            seen.add("binary " + b.length);
        }

        @Override
        public void ping(byte[] payload) {
            seen.add("ping " + new String(payload, StandardCharsets.UTF_8));
        }

        @Override
        public void pong() {
            seen.add("pong");
        }

        @Override
        public void close(int code, String reason) {
            seen.add("close " + code + " " + reason);
        }
    }

    private final Events events = new Events();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private void feed(WsMessageReader reader, byte[] bytes) throws WsProtocolException {
        reader.feed(ByteBuffer.wrap(bytes), events);
    }

    private static WsMessageReader plain() {
        return new WsMessageReader(1 << 20, null);
    }

    private static int closeCodeOf(WsMessageReader reader, byte[] bytes) {
        try {
            reader.feed(ByteBuffer.wrap(bytes), new Events());
        } catch (WsProtocolException e) {
            return e.closeCode();
        }
        return -1;
    }

    @Test
    void messagesFedOneByteAtATimeArriveWholeAndInOrder() throws Exception {
        WsMessageReader reader = plain();
        byte[] bytes = concat(whole(TEXT, utf8("héllo")), whole(BINARY, new byte[] {1, 2, 3}), whole(TEXT, new byte[0]));
        for (byte b : bytes) {
            feed(reader, new byte[] {b});
        }
        assertThat(events.seen).containsExactly("text héllo", "binary 3", "text ");
        assertThat(events.binaries.getFirst()).containsExactly(1, 2, 3);
    }

    @Test
    void fragmentsAreJoinedAndControlFramesMayComeBetweenThem() throws Exception {
        WsMessageReader reader = plain();
        feed(reader, concat(frame(false, 0, TEXT, utf8("hel")), whole(WsMessageReader.PING, utf8("p")),
                frame(false, 0, CONT, utf8("l")), whole(WsMessageReader.PONG, new byte[0]), frame(true, 0, CONT, utf8("o"))));
        assertThat(events.seen).containsExactly("ping p", "pong", "text hello");
    }

    @Test
    void sixteenAndSixtyFourBitLengthsAreRead() throws Exception {
        WsMessageReader reader = plain();
        byte[] medium = new byte[300];
        byte[] large = new byte[70_000];
        Arrays.fill(large, (byte) 7);
        feed(reader, concat(whole(BINARY, medium), whole(BINARY, large)));
        assertThat(events.seen).containsExactly("binary 300", "binary 70000");
        assertThat(events.binaries.get(1)).containsOnly(7);
    }

    @Test
    void anUnmaskedFrameIsAProtocolErrorAsSoonAsItsSecondByteArrives() {
        byte[] unmasked = frame(true, 0, TEXT, utf8("x"), false);
        assertThat(closeCodeOf(plain(), Arrays.copyOf(unmasked, 2))).isEqualTo(WsClose.PROTOCOL_ERROR);
    }

    @Test
    void reservedBitsAndUnknownOpcodesAreProtocolErrors() {
        assertThat(closeCodeOf(plain(), frame(true, 2, TEXT, utf8("x")))).isEqualTo(WsClose.PROTOCOL_ERROR);
        assertThat(closeCodeOf(plain(), frame(true, 4, TEXT, utf8("x")))).as("RSV1 with no compression agreed").isEqualTo(WsClose.PROTOCOL_ERROR);
        assertThat(closeCodeOf(plain(), frame(true, 0, 3, utf8("x")))).isEqualTo(WsClose.PROTOCOL_ERROR);
        assertThat(closeCodeOf(plain(), frame(true, 0, 0xB, utf8("x")))).isEqualTo(WsClose.PROTOCOL_ERROR);
    }

    @Test
    void controlFramesAreShortAndWhole() {
        assertThat(closeCodeOf(plain(), frame(false, 0, WsMessageReader.PING, utf8("x")))).isEqualTo(WsClose.PROTOCOL_ERROR);
        assertThat(closeCodeOf(plain(), whole(WsMessageReader.PING, new byte[126]))).isEqualTo(WsClose.PROTOCOL_ERROR);
    }

    @Test
    void fragmentsOutOfSequenceAreProtocolErrors() {
        assertThat(closeCodeOf(plain(), frame(true, 0, CONT, utf8("x")))).as("nothing to continue").isEqualTo(WsClose.PROTOCOL_ERROR);
        assertThat(closeCodeOf(plain(), concat(frame(false, 0, TEXT, utf8("a")), whole(TEXT, utf8("b")))))
                .as("a new message inside another").isEqualTo(WsClose.PROTOCOL_ERROR);
    }

    @Test
    void aMessageOverTheLimitIsTooBigEvenAcrossFragments() throws Exception {
        WsMessageReader reader = new WsMessageReader(1000, null);
        assertThat(closeCodeOf(reader, whole(BINARY, new byte[1001]))).isEqualTo(WsClose.TOO_BIG);
        WsMessageReader fragmented = new WsMessageReader(1000, null);
        feed(fragmented, frame(false, 0, BINARY, new byte[600]));
        assertThat(closeCodeOf(fragmented, frame(true, 0, CONT, new byte[401]))).isEqualTo(WsClose.TOO_BIG);
        WsMessageReader exact = new WsMessageReader(1000, null);
        feed(exact, whole(BINARY, new byte[1000]));
        assertThat(events.seen).containsExactly("binary 1000");
    }

    @Test
    void textThatIsNotUtf8IsABadPayload() {
        assertThat(closeCodeOf(plain(), whole(TEXT, new byte[] {(byte) 0xC3, 0x28}))).isEqualTo(WsClose.BAD_PAYLOAD);
        byte[] euro = utf8("€");
        assertThat(closeCodeOf(plain(), concat(frame(false, 0, TEXT, Arrays.copyOf(euro, 1)),
                frame(true, 0, CONT, Arrays.copyOfRange(euro, 1, 3))))).as("a character split across fragments is fine").isEqualTo(-1);
    }

    @Test
    void aCloseFrameGivesItsCodeAndReasonAndNothingIsReadAfterIt() throws Exception {
        WsMessageReader reader = plain();
        byte[] payload = concat(new byte[] {0x03, (byte) 0xE8}, utf8("bye"));
        feed(reader, concat(whole(WsMessageReader.CLOSE, payload), whole(TEXT, utf8("late"))));
        assertThat(events.seen).containsExactly("close 1000 bye");
    }

    @Test
    void closeFramesWithoutACodeOrWithAForbiddenOneAreJudged() throws Exception {
        feed(plain(), whole(WsMessageReader.CLOSE, new byte[0]));
        assertThat(events.seen).containsExactly("close 1005 ");
        assertThat(closeCodeOf(plain(), whole(WsMessageReader.CLOSE, new byte[] {3}))).isEqualTo(WsClose.PROTOCOL_ERROR);
        assertThat(closeCodeOf(plain(), whole(WsMessageReader.CLOSE, new byte[] {0x03, (byte) 0xED}))).as("1005 may not be sent")
                .isEqualTo(WsClose.PROTOCOL_ERROR);
        assertThat(closeCodeOf(plain(), whole(WsMessageReader.CLOSE, new byte[] {0x03, (byte) 0xE8, (byte) 0xFF})))
                .isEqualTo(WsClose.BAD_PAYLOAD);
    }

    @Test
    void compressedMessagesInflateAcrossTheSharedWindow() throws Exception {
        PerMessageDeflate deflate = new PerMessageDeflate(PerMessageDeflate.negotiate(List.of("permessage-deflate")).orElseThrow());
        WsMessageReader reader = new WsMessageReader(1 << 20, deflate);
        ClientFrames.Compressor client = new ClientFrames.Compressor();
        StringBuilder b = new StringBuilder();
        Random random = new Random(1);
        for (int i = 0; i < 300; i++) {
            b.append((char) ('a' + random.nextInt(26)));
        }
        String line = b.toString();
        byte[] first = client.compress(utf8(line));
        byte[] second = client.compress(utf8(line));
        assertThat(second.length).as("the second refers back to the first").isLessThan(first.length / 4);
        byte[] split = client.compress(utf8("split"));
        feed(reader, concat(frame(true, 4, TEXT, first), frame(true, 4, TEXT, second), whole(TEXT, utf8("plain")),
                frame(false, 4, TEXT, Arrays.copyOf(split, 3)), frame(true, 0, CONT, Arrays.copyOfRange(split, 3, split.length))));
        assertThat(events.seen).containsExactly("text " + line, "text " + line, "text plain", "text split");
    }

    @Test
    void aSmallCompressedMessageThatInflatesPastTheLimitIsTooBig() throws Exception {
        PerMessageDeflate deflate = new PerMessageDeflate(PerMessageDeflate.negotiate(List.of("permessage-deflate")).orElseThrow());
        byte[] bomb = new ClientFrames.Compressor().compress(new byte[1 << 20]);
        assertThat(bomb.length).isLessThan(2000);
        assertThat(closeCodeOf(new WsMessageReader(64 * 1024, deflate), frame(true, 4, BINARY, bomb))).isEqualTo(WsClose.TOO_BIG);
    }

    @Test
    void garbageMarkedCompressedIsABadPayload() {
        PerMessageDeflate deflate = new PerMessageDeflate(PerMessageDeflate.negotiate(List.of("permessage-deflate")).orElseThrow());
        assertThat(closeCodeOf(new WsMessageReader(1 << 20, deflate), frame(true, 4, BINARY, new byte[] {(byte) 0xFF, (byte) 0xFF, 1})))
                .isEqualTo(WsClose.BAD_PAYLOAD);
    }
}
