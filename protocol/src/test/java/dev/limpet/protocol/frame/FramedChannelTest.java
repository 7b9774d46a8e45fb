package dev.limpet.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FramedChannelTest {
    static final int MAX_FRAME = 1 << 20;
    static final int MAX_LINE = 1024;

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code [u32 length][frame]} */
    static byte[] prefixed(byte[] frame) {
        return ByteBuffer.allocate(4 + frame.length).putInt(frame.length).put(frame).array();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** A handshake of two lines, then three frames, the last one larger than the channel's buffer. */
    static final byte[] F1 = Frame.control("{\"type\":\"ready\"}");
    static final byte[] F2 = Frame.encode(FrameKind.OUTPUT, "k3x9q2", 5, bytes("hello"));
    static final byte[] F3 = Frame.encode(FrameKind.SNAPSHOT, "k3x9q2", 77, randomBytes(200_000, 3));
    static final byte[] MIXED = concat(bytes("{\"hello\":1}\n"), bytes("{\"switch\":\"frames\"}\n"), prefixed(F1), prefixed(F2),
            prefixed(F3));

    static void assertReadsMixed(FramedChannel ch) throws IOException {
        assertThat(ch.readLine()).isEqualTo("{\"hello\":1}");
        assertThat(ch.readLine()).isEqualTo("{\"switch\":\"frames\"}");
        for (byte[] expected : List.of(F1, F2, F3)) {
            Frame f = ch.readFrame();
            assertThat(f.ownsArray()).isTrue();
            assertThat(f.array()).isEqualTo(expected);
        }
        assertThatThrownBy(ch::readFrame).isInstanceOf(EOFException.class);
    }

    // ---- reading ----

    @Test
    void linesThenFramesInOneBufferedReadLoseNoBytesAtTheSwitch() throws IOException {
        MemoryChannel source = new MemoryChannel(MIXED);
        FramedChannel ch = new FramedChannel(source, MAX_FRAME, MAX_LINE);

        assertThat(ch.readLine()).isEqualTo("{\"hello\":1}");
        // the first read pulled the second line and the start of the frames into the buffer with it
        assertThat(source.reads).isEqualTo(1);
        assertThat(ch.readLine()).isEqualTo("{\"switch\":\"frames\"}");
        assertThat(source.reads).isEqualTo(1);
        assertThat(ch.readFrame().array()).isEqualTo(F1);
        assertThat(ch.readFrame().array()).isEqualTo(F2);
        assertThat(source.reads).isEqualTo(1);
        assertThat(ch.readFrame().array()).isEqualTo(F3);
        assertThatThrownBy(ch::readFrame).isInstanceOf(EOFException.class);

        assertReadsMixed(new FramedChannel(new MemoryChannel(MIXED), MAX_FRAME, MAX_LINE));
    }

    @Test
    void linesThenFramesSplitAcrossTinyReadsAreReassembled() throws IOException {
        for (long seed = 0; seed < 5; seed++) {
            MemoryChannel source = new MemoryChannel(MIXED, new Random(seed), 1, 3);
            assertReadsMixed(new FramedChannel(source, MAX_FRAME, MAX_LINE));
            assertThat(source.reads).as("seed %d", seed).isGreaterThan(MIXED.length / 3);
        }
    }

    @Test
    void theSwitchCanFallAnywhereInABufferedRead() throws IOException {
        // every split point of the stream into two reads: the line and frame boundaries fall inside a read
        byte[] small = concat(bytes("ab\n"), bytes("c\n"), prefixed(F1), prefixed(F2));
        for (int split = 1; split < small.length; split++) {
            int s = split;
            ByteChannel twoReads = new MemoryChannel(small) {
                boolean first = true;

                @Override
                public int read(ByteBuffer dst) throws ClosedChannelException {
                    if (first) {
                        first = false;
                        ByteBuffer limited = dst.slice(dst.position(), Math.min(dst.remaining(), s));
                        int n = super.read(limited);
                        dst.position(dst.position() + n);
                        return n;
                    }
                    return super.read(dst);
                }
            };
            FramedChannel ch = new FramedChannel(twoReads, MAX_FRAME, MAX_LINE);
            assertThat(ch.readLine()).as("split %d", s).isEqualTo("ab");
            assertThat(ch.readLine()).as("split %d", s).isEqualTo("c");
            assertThat(ch.readFrame().array()).as("split %d", s).isEqualTo(F1);
            assertThat(ch.readFrame().array()).as("split %d", s).isEqualTo(F2);
            assertThatThrownBy(ch::readFrame).isInstanceOf(EOFException.class);
        }
    }

    @Test
    void aFrameLargerThanTheInternalBufferIsReadWhole() throws IOException {
        byte[] huge = Frame.encode(FrameKind.OUTPUT, "s", 300_000, randomBytes(300_000, 11));
        byte[] stream = concat(prefixed(huge), prefixed(F2));
        for (MemoryChannel source : List.of(new MemoryChannel(stream), new MemoryChannel(stream, new Random(1), 1, 3000))) {
            FramedChannel ch = new FramedChannel(source, MAX_FRAME, MAX_LINE);
            Frame f = ch.readFrame();
            assertThat(f.array()).isEqualTo(huge);
            assertThat(f.offset()).isEqualTo(300_000);
            assertThat(ch.readFrame().array()).isEqualTo(F2);
        }
    }

    @Test
    void aFrameOfExactlyTheMaximumIsAccepted() throws IOException {
        byte[] frame = Frame.encode(FrameKind.INPUT, "s", 0, new byte[100]);
        FramedChannel ch = new FramedChannel(new MemoryChannel(prefixed(frame)), frame.length, MAX_LINE);
        assertThat(ch.readFrame().array()).isEqualTo(frame);
    }

    @Test
    void aLengthOverTheMaximumIsRefused() {
        byte[] frame = Frame.encode(FrameKind.INPUT, "s", 0, new byte[100]);
        FramedChannel ch = new FramedChannel(new MemoryChannel(prefixed(frame)), frame.length - 1, MAX_LINE);
        assertThatThrownBy(ch::readFrame)
                .isInstanceOf(FrameException.class)
                .hasMessageContaining("frame length " + frame.length)
                .hasMessageContaining(String.valueOf(frame.length - 1));
    }

    @Test
    void aLengthWithTheTopBitSetIsRefusedAndReportedUnsigned() {
        FramedChannel ch = new FramedChannel(new MemoryChannel(new byte[] {-1, -1, -1, -1, 1, 2, 3}), MAX_FRAME, MAX_LINE);
        assertThatThrownBy(ch::readFrame)
                .isInstanceOf(FrameException.class)
                .hasMessageContaining("frame length 4294967295");
    }

    @Test
    void aLengthUnderTheHeaderSizeIsRefused() {
        for (int length = 0; length < Frame.FIXED_HEADER; length++) {
            byte[] stream = concat(ByteBuffer.allocate(4).putInt(length).array(), new byte[20]);
            FramedChannel ch = new FramedChannel(new MemoryChannel(stream), MAX_FRAME, MAX_LINE);
            assertThatThrownBy(ch::readFrame)
                    .isInstanceOf(FrameException.class)
                    .hasMessageContaining("frame length " + length);
        }
    }

    @Test
    void anInvalidFrameInsideAValidLengthIsAFrameException() {
        byte[] bad = Frame.encode(FrameKind.OUTPUT, "s", 0, new byte[4]);
        bad[0] = 9;
        FramedChannel ch = new FramedChannel(new MemoryChannel(prefixed(bad)), MAX_FRAME, MAX_LINE);
        assertThatThrownBy(ch::readFrame).isInstanceOf(FrameException.class).hasMessageContaining("unknown frame kind 9");
    }

    @Test
    void endOfStreamInsideAFrameIsAnEofException() {
        byte[] stream = prefixed(F3);
        for (int cut : new int[] {1, 3, 4, 5, 100, 70_000, stream.length - 1}) {
            byte[] truncated = Arrays.copyOf(stream, cut);
            for (MemoryChannel source : List.of(new MemoryChannel(truncated), new MemoryChannel(truncated, new Random(cut), 1, 3))) {
                FramedChannel ch = new FramedChannel(source, MAX_FRAME, MAX_LINE);
                assertThatThrownBy(ch::readFrame).as("cut at %d", cut).isInstanceOf(EOFException.class);
            }
        }
    }

    @Test
    void endOfStreamBetweenFramesIsAnEofException() throws IOException {
        FramedChannel ch = new FramedChannel(new MemoryChannel(prefixed(F2)), MAX_FRAME, MAX_LINE);
        ch.readFrame();
        assertThatThrownBy(ch::readFrame).isInstanceOf(EOFException.class);
        assertThatThrownBy(ch::readFrame).isInstanceOf(EOFException.class);
    }

    @Test
    void endOfStreamInsideALineIsAnEofException() {
        FramedChannel ch = new FramedChannel(new MemoryChannel(bytes("no newline")), MAX_FRAME, MAX_LINE);
        assertThatThrownBy(ch::readLine).isInstanceOf(EOFException.class);
        FramedChannel empty = new FramedChannel(new MemoryChannel(new byte[0]), MAX_FRAME, MAX_LINE);
        assertThatThrownBy(empty::readLine).isInstanceOf(EOFException.class);
    }

    @Test
    void aLineSplitAcrossReadsIsJoinedEvenInsideAMultiByteCharacter() throws IOException {
        String text = "héllo ✓ wörld";
        byte[] stream = concat(bytes(text + "\n"), bytes("\n"), bytes("next\n"));
        for (long seed = 0; seed < 20; seed++) {
            FramedChannel ch = new FramedChannel(new MemoryChannel(stream, new Random(seed), 1, 3), MAX_FRAME, MAX_LINE);
            assertThat(ch.readLine()).isEqualTo(text);
            assertThat(ch.readLine()).isEmpty();
            assertThat(ch.readLine()).isEqualTo("next");
        }
    }

    @Test
    void aLineOfExactlyTheLimitIsAccepted() throws IOException {
        String line = "x".repeat(MAX_LINE);
        FramedChannel ch = new FramedChannel(new MemoryChannel(bytes(line + "\n")), MAX_FRAME, MAX_LINE);
        assertThat(ch.readLine()).isEqualTo(line);
    }

    @Test
    void aLineOverTheLimitIsAFrameException() {
        byte[] stream = bytes("x".repeat(MAX_LINE + 1) + "\n");
        for (MemoryChannel source : List.of(new MemoryChannel(stream), new MemoryChannel(stream, new Random(2), 1, 3))) {
            FramedChannel ch = new FramedChannel(source, MAX_FRAME, MAX_LINE);
            assertThatThrownBy(ch::readLine)
                    .isInstanceOf(FrameException.class)
                    .hasMessageContaining("line longer than " + MAX_LINE);
        }
    }

    @Test
    void aLineWithoutANewlineLongerThanTheBufferIsRefusedBeforeTheStreamEnds() {
        // 1 MiB limit, 2 MiB of text with no newline: refused once the limit is passed, not at EOF
        MemoryChannel source = new MemoryChannel(bytes("y".repeat(2 << 20)));
        FramedChannel ch = new FramedChannel(source, MAX_FRAME, 1 << 20);
        assertThatThrownBy(ch::readLine).isInstanceOf(FrameException.class);
        assertThat(source.unread()).isGreaterThan(0);
    }

    @Test
    void aLongLineAcrossManyBufferFillsIsReadWhole() throws IOException {
        String line = "z".repeat(200_000);
        FramedChannel ch = new FramedChannel(new MemoryChannel(bytes(line + "\nafter\n")), MAX_FRAME, 1 << 20);
        assertThat(ch.readLine()).isEqualTo(line);
        assertThat(ch.readLine()).isEqualTo("after");
    }

    // ---- writing ----

    /** The two ends of a pipe as one channel; gathering when asked, so both write paths run. */
    static ByteChannel pipeChannel(Pipe pipe, boolean gathering) {
        if (gathering) {
            return new GatheringPipe(pipe);
        }
        return new ByteChannel() {
            @Override
            public int read(ByteBuffer dst) throws IOException {
                return pipe.source().read(dst);
            }

            @Override
            public int write(ByteBuffer src) throws IOException {
                return pipe.sink().write(src);
            }

            @Override
            public boolean isOpen() {
                return pipe.sink().isOpen();
            }

            @Override
            public void close() throws IOException {
                pipe.sink().close();
            }
        };
    }

    static final class GatheringPipe implements ByteChannel, GatheringByteChannel {
        private final Pipe pipe;

        GatheringPipe(Pipe pipe) {
            this.pipe = pipe;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return pipe.source().read(dst);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return pipe.sink().write(src);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            return pipe.sink().write(srcs, offset, length);
        }

        @Override
        public long write(ByteBuffer[] srcs) throws IOException {
            return pipe.sink().write(srcs);
        }

        @Override
        public boolean isOpen() {
            return pipe.sink().isOpen();
        }

        @Override
        public void close() throws IOException {
            pipe.sink().close();
        }
    }

    interface Writes {
        void to(FramedChannel ch) throws IOException;
    }

    /** Writes on another thread (a pipe holds little), then closes the write end; reads here. */
    static CompletableFuture<Void> writeInBackground(FramedChannel writer, Writes writes) {
        return CompletableFuture.runAsync(() -> {
            try {
                writes.to(writer);
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, r -> Thread.ofPlatform().daemon().start(r));
    }

    @Test
    void writeFrameAndWriteEncodedProduceWhatReadFrameReads() throws Exception {
        byte[] big = randomBytes(300_000, 5);
        for (boolean gathering : new boolean[] {true, false}) {
            Pipe pipe = Pipe.open();
            FramedChannel writer = new FramedChannel(pipeChannel(pipe, gathering), MAX_FRAME, MAX_LINE);
            FramedChannel reader = new FramedChannel(pipeChannel(pipe, gathering), MAX_FRAME, MAX_LINE);
            byte[] direct = new byte[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
            ByteBuffer directPayload = ByteBuffer.allocateDirect(10).put(direct).flip();
            ByteBuffer window = ByteBuffer.wrap(bytes("--middle--"), 2, 6); // position 2, remaining 6

            CompletableFuture<Void> done = writeInBackground(writer, w -> {
                w.writeLine("{\"hello\":true}");
                w.writeFrame(FrameKind.OUTPUT, "k3x9q2", 1234, ByteBuffer.wrap(bytes("out")));
                w.writeFrame(FrameKind.CONTROL, "", 0, ByteBuffer.wrap(bytes("{}")));
                w.writeFrame(FrameKind.CREDIT, "k3x9q2", Long.MAX_VALUE, ByteBuffer.allocate(0));
                w.writeFrame(FrameKind.SNAPSHOT, "a".repeat(64), -1, ByteBuffer.wrap(big));
                w.writeFrame(FrameKind.INPUT, "in", 0, directPayload);
                w.writeFrame(FrameKind.OUTPUT, "w", 9, window);
                w.writeEncoded(ByteBuffer.wrap(F2));
                w.writeEncoded(Frame.decode(F3).encoded());
            });

            assertThat(reader.readLine()).isEqualTo("{\"hello\":true}");
            assertThat(reader.readFrame().array()).isEqualTo(Frame.encode(FrameKind.OUTPUT, "k3x9q2", 1234, bytes("out")));
            assertThat(reader.readFrame().array()).isEqualTo(Frame.control("{}"));
            assertThat(reader.readFrame().array()).isEqualTo(Frame.encode(FrameKind.CREDIT, "k3x9q2", Long.MAX_VALUE, new byte[0]));
            assertThat(reader.readFrame().array()).isEqualTo(Frame.encode(FrameKind.SNAPSHOT, "a".repeat(64), -1, big));
            assertThat(reader.readFrame().array()).isEqualTo(Frame.encode(FrameKind.INPUT, "in", 0, direct));
            assertThat(reader.readFrame().array()).isEqualTo(Frame.encode(FrameKind.OUTPUT, "w", 9, bytes("middle")));
            assertThat(reader.readFrame().array()).isEqualTo(F2);
            assertThat(reader.readFrame().array()).isEqualTo(F3);
            done.get(10, TimeUnit.SECONDS);
            assertThatThrownBy(reader::readFrame).as("gathering %s", gathering).isInstanceOf(EOFException.class);
            assertThat(directPayload.hasRemaining()).isFalse();
            assertThat(window.hasRemaining()).isFalse();
            pipe.source().close();
        }
    }

    @Test
    void writesSurviveAChannelThatAcceptsOnlyAFewBytesPerWrite() throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        Random random = new Random(4);
        class Trickle implements GatheringByteChannel, ByteChannel {
            @Override
            public int write(ByteBuffer src) {
                int n = Math.min(src.remaining(), 1 + random.nextInt(3));
                for (int i = 0; i < n; i++) {
                    sink.write(src.get());
                }
                return n;
            }

            @Override
            public long write(ByteBuffer[] srcs, int offset, int length) {
                for (int i = offset; i < offset + length; i++) {
                    if (srcs[i].hasRemaining()) {
                        return write(srcs[i]);
                    }
                }
                return 0;
            }

            @Override
            public long write(ByteBuffer[] srcs) {
                return write(srcs, 0, srcs.length);
            }

            @Override
            public int read(ByteBuffer dst) {
                return -1;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        }
        FramedChannel ch = new FramedChannel(new Trickle(), MAX_FRAME, MAX_LINE);
        ch.writeLine("line");
        ch.writeFrame(FrameKind.OUTPUT, "s", 3, ByteBuffer.wrap(bytes("abc")));
        ch.writeEncoded(ByteBuffer.wrap(F1));

        byte[] expected = concat(bytes("line\n"), prefixed(Frame.encode(FrameKind.OUTPUT, "s", 3, bytes("abc"))), prefixed(F1));
        assertThat(sink.toByteArray()).isEqualTo(expected);
    }

    @Test
    void writeFrameRefusesAnInvalidStreamIdAndWritesNothing() {
        MemoryChannel out = new MemoryChannel(new byte[0]);
        FramedChannel ch = new FramedChannel(out, MAX_FRAME, MAX_LINE);
        assertThatThrownBy(() -> ch.writeFrame(FrameKind.OUTPUT, "", 0, ByteBuffer.allocate(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ch.writeFrame(FrameKind.CONTROL, "s", 0, ByteBuffer.allocate(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ch.writeFrame(FrameKind.OUTPUT, "a b", 0, ByteBuffer.allocate(1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(out.written()).isEmpty();
    }

    @Test
    void concurrentWritersNeverInterleaveTheirFrames() throws Exception {
        int writers = 4;
        int perWriter = 300;
        Pipe pipe = Pipe.open();
        FramedChannel writer = new FramedChannel(pipeChannel(pipe, true), MAX_FRAME, MAX_LINE);
        FramedChannel reader = new FramedChannel(pipeChannel(pipe, true), MAX_FRAME, MAX_LINE);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            String id = "w" + w;
            boolean encoded = w % 2 == 0;
            threads.add(Thread.ofPlatform().daemon().start(() -> {
                try {
                    for (int i = 0; i < perWriter; i++) {
                        byte[] payload = new byte[1 + i * 37 % 5000];
                        Arrays.fill(payload, (byte) i);
                        if (encoded) {
                            writer.writeEncoded(ByteBuffer.wrap(Frame.encode(FrameKind.OUTPUT, id, i, payload)));
                        } else {
                            writer.writeFrame(FrameKind.OUTPUT, id, i, ByteBuffer.wrap(payload));
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }));
        }
        Map<String, Long> next = new HashMap<>();
        for (int n = 0; n < writers * perWriter; n++) {
            Frame f = reader.readFrame();
            long expected = next.getOrDefault(f.streamId(), 0L);
            assertThat(f.offset()).isEqualTo(expected);
            byte[] payload = new byte[1 + (int) expected * 37 % 5000];
            Arrays.fill(payload, (byte) expected);
            assertThat(f.payload()).isEqualTo(payload);
            next.put(f.streamId(), expected + 1);
        }
        for (Thread t : threads) {
            t.join(5000);
        }
        assertThat(next).hasSize(writers).allSatisfy((id, count) -> assertThat(count).isEqualTo((long) perWriter));
        writer.close();
        reader.close();
        pipe.source().close();
    }

    @Test
    void closeClosesTheChannelAndIgnoresErrors() throws IOException {
        MemoryChannel ch = new MemoryChannel(new byte[0]);
        FramedChannel framed = new FramedChannel(ch, MAX_FRAME, MAX_LINE);
        assertThat(framed.channel()).isSameAs(ch);
        framed.close();
        assertThat(ch.isOpen()).isFalse();

        FramedChannel failing = new FramedChannel(new ByteChannel() {
            @Override
            public int read(ByteBuffer dst) {
                return -1;
            }

            @Override
            public int write(ByteBuffer src) {
                return 0;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() throws IOException {
                throw new IOException("already broken");
            }
        }, MAX_FRAME, MAX_LINE);
        failing.close(); // no exception
    }
}
