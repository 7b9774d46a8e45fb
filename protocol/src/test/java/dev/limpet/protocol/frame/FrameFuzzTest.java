package dev.limpet.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded fuzzing of {@link Frame#decode} and {@link FramedChannel#readFrame}: whatever the bytes, the
 * only exceptions are {@link FrameException} (and {@link EOFException} at the end of a stream), and a
 * frame that decodes re-encodes to exactly its bytes. Reproduce a failure with
 * {@code -Dlimpet.fuzz.seed=<seed>} (the seed is printed in every failure message).
 *
 * <p>The timeout only catches a decoder that loops for ever; it is generous because each test runs
 * 100,000 cases, seconds on a quiet machine and over a minute on a loaded one.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class FrameFuzzTest {
    static final long SEED = Long.getLong("limpet.fuzz.seed", 0x5EED_1147_0001L);
    static final int CASES = 100_000;
    static final int MAX_FRAME = 4096;
    static final byte[] ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-".getBytes();
    static final HexFormat HEX = HexFormat.of();

    /** Where a failure happened: the loop's seed and case number, and the input. */
    static String where(String part, long seed, long caseNo, byte[] input) {
        String hex = input.length <= 512 ? HEX.formatHex(input) : HEX.formatHex(input, 0, 512) + "…";
        return part + " seed=0x" + Long.toHexString(seed) + " (-Dlimpet.fuzz.seed=0x" + Long.toHexString(SEED) + ") case=" + caseNo
                + " input(" + input.length + ")=" + hex;
    }

    // ---- generators ----

    static String randomId(Random r) {
        int n = 1 + (r.nextInt(4) == 0 ? r.nextInt(Frame.MAX_STREAM_ID) : r.nextInt(12));
        byte[] id = new byte[n];
        for (int i = 0; i < n; i++) {
            id[i] = ID_CHARS[r.nextInt(ID_CHARS.length)];
        }
        return new String(id, StandardCharsets.US_ASCII);
    }

    static long randomOffset(Random r) {
        return switch (r.nextInt(5)) {
            case 0 -> 0;
            case 1 -> r.nextInt(1 << 20);
            case 2 -> Long.MAX_VALUE - r.nextInt(3);
            case 3 -> Long.MIN_VALUE + r.nextInt(3);
            default -> r.nextLong();
        };
    }

    static byte[] randomValidFrame(Random r) {
        FrameKind kind = FrameKind.values()[r.nextInt(FrameKind.values().length)];
        String id = kind.hasStream() ? randomId(r) : "";
        byte[] payload = new byte[r.nextInt(4) == 0 ? 0 : r.nextInt(r.nextInt(8) == 0 ? 1000 : 40)];
        r.nextBytes(payload);
        return Frame.encode(kind, id, kind == FrameKind.CONTROL ? 0 : randomOffset(r), payload);
    }

    /** Random bytes, half of them shaped like a frame (a real kind, a small id length) so decode gets further. */
    static byte[] randomBytes(Random r) {
        byte[] b = new byte[r.nextInt(r.nextInt(10) == 0 ? 300 : 40)];
        r.nextBytes(b);
        if (b.length >= 2 && r.nextBoolean()) {
            b[0] = (byte) (1 + r.nextInt(5));
            b[1] = (byte) (r.nextInt(8) == 0 ? r.nextInt(256) : r.nextInt(Math.min(b.length, 70)));
            if (r.nextBoolean()) {
                for (int i = 2; i < Math.min(b.length, 2 + (b[1] & 0xff)); i++) {
                    b[i] = ID_CHARS[r.nextInt(ID_CHARS.length)];
                }
            }
        }
        return b;
    }

    /** One to three mutations: bit flips, truncation, insertion, deletion, id-length or kind corruption. */
    static byte[] mutate(byte[] in, Random r) {
        byte[] b = in;
        int mutations = 1 + r.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            switch (r.nextInt(8)) {
                case 0 -> { // bit flip
                    if (b.length > 0) {
                        b = b.clone();
                        int i = r.nextInt(b.length);
                        b[i] ^= (byte) (1 << r.nextInt(8));
                    }
                }
                case 1 -> b = Arrays.copyOf(b, b.length == 0 ? 0 : r.nextInt(b.length)); // truncate
                case 2 -> { // insert a byte
                    int at = r.nextInt(b.length + 1);
                    byte[] c = new byte[b.length + 1];
                    System.arraycopy(b, 0, c, 0, at);
                    c[at] = (byte) r.nextInt(256);
                    System.arraycopy(b, at, c, at + 1, b.length - at);
                    b = c;
                }
                case 3 -> { // delete a byte
                    if (b.length > 0) {
                        int at = r.nextInt(b.length);
                        byte[] c = new byte[b.length - 1];
                        System.arraycopy(b, 0, c, 0, at);
                        System.arraycopy(b, at + 1, c, at, b.length - at - 1);
                        b = c;
                    }
                }
                case 4 -> { // id-length field
                    if (b.length > 1) {
                        b = b.clone();
                        b[1] = (byte) switch (r.nextInt(4)) {
                            case 0 -> r.nextInt(256);
                            case 1 -> (b[1] & 0xff) + 1;
                            case 2 -> (b[1] & 0xff) - 1;
                            default -> 64 + r.nextInt(3);
                        };
                    }
                }
                case 5 -> { // kind
                    if (b.length > 0) {
                        b = b.clone();
                        b[0] = (byte) r.nextInt(8);
                    }
                }
                case 6 -> { // an id byte (or any header byte) replaced
                    if (b.length > 2) {
                        b = b.clone();
                        b[2 + r.nextInt(Math.min(b.length - 2, 66))] = (byte) r.nextInt(256);
                    }
                }
                default -> { // overwrite a random byte
                    if (b.length > 0) {
                        b = b.clone();
                        b[r.nextInt(b.length)] = (byte) r.nextInt(256);
                    }
                }
            }
        }
        return b;
    }

    // ---- checks ----

    /** Decodes {@code array[start, start+length)}; a frame must re-encode to exactly those bytes. */
    static boolean decodeChecked(byte[] array, int start, int length, Supplier<String> where) {
        Frame f;
        try {
            f = Frame.decode(array, start, length);
        } catch (FrameException e) {
            if (e.getMessage() == null || e.getMessage().isBlank()) {
                fail("FrameException without a message: " + where.get());
            }
            return false;
        } catch (Throwable t) {
            throw new AssertionError("unexpected " + t + ": " + where.get(), t);
        }
        byte[] exact = Arrays.copyOfRange(array, start, start + length);
        byte[] again;
        try {
            again = Frame.encode(f.kind(), f.streamId(), f.offset(), f.payload());
        } catch (Throwable t) {
            throw new AssertionError("decoded frame " + f + " does not re-encode (" + t + "): " + where.get(), t);
        }
        if (!Arrays.equals(again, exact)) {
            fail("re-encoding differs: " + HEX.formatHex(again) + " " + where.get());
        }
        if (f.array() != array || f.payloadStart() < start || f.payloadStart() + f.payloadLength() != start + length) {
            fail("decoded frame is not a view of its bytes: " + f + " " + where.get());
        }
        ByteBuffer enc = f.encoded();
        byte[] encBytes = new byte[enc.remaining()];
        enc.get(encBytes);
        if (!Arrays.equals(encBytes, exact)) {
            fail("encoded() differs from the input: " + where.get());
        }
        return true;
    }

    // ---- the fuzz loops ----

    @Test
    void randomBytesEitherDecodeToAFrameThatReEncodesIdenticallyOrThrowFrameException() {
        long seed = SEED;
        Random r = new Random(seed);
        int decoded = 0;
        for (int i = 0; i < CASES; i++) {
            int caseNo = i;
            byte[] b = randomBytes(r);
            if (r.nextInt(4) == 0) {
                // inside a larger array, with bounds that are sometimes outside it
                int pad = r.nextInt(8);
                byte[] big = new byte[pad + b.length + r.nextInt(8)];
                r.nextBytes(big);
                System.arraycopy(b, 0, big, pad, b.length);
                int start = r.nextInt(10) == 0 ? r.nextInt(big.length + 4) - 2 : pad;
                int length = r.nextInt(10) == 0 ? r.nextInt(big.length + 4) - 2 : b.length;
                if (start >= 0 && length >= 0 && start <= big.length - length) {
                    decoded += decodeChecked(big, start, length, () -> where("random-in-array start=" + start + " length=" + length, seed, caseNo, big)) ? 1 : 0;
                } else {
                    try {
                        Frame.decode(big, start, length);
                        fail("bounds outside the array were accepted: " + where("start=" + start + " length=" + length, seed, caseNo, big));
                    } catch (FrameException expected) {
                        // the documented failure
                    } catch (Throwable t) {
                        throw new AssertionError("unexpected " + t + ": " + where("start=" + start + " length=" + length, seed, caseNo, big), t);
                    }
                }
            } else {
                decoded += decodeChecked(b, 0, b.length, () -> where("random", seed, caseNo, b)) ? 1 : 0;
            }
        }
        System.out.printf("FrameFuzzTest random: %d cases, %d decoded, seed=0x%x%n", CASES, decoded, seed);
        assertThat(decoded).as("some random inputs should be valid frames (seed 0x%x)", seed).isPositive();
    }

    @Test
    void mutatedValidFramesEitherDecodeToAFrameThatReEncodesIdenticallyOrThrowFrameException() {
        long seed = SEED + 1;
        Random r = new Random(seed);
        int decoded = 0;
        for (int i = 0; i < CASES; i++) {
            int caseNo = i;
            byte[] valid = randomValidFrame(r);
            if (!decodeChecked(valid, 0, valid.length, () -> where("valid", seed, caseNo, valid))) {
                fail("a valid frame was refused: " + where("valid", seed, caseNo, valid));
            }
            byte[] b = mutate(valid, r);
            decoded += decodeChecked(b, 0, b.length, () -> where("mutated", seed, caseNo, b)) ? 1 : 0;
        }
        System.out.printf("FrameFuzzTest mutated: %d cases, %d still decoded, seed=0x%x%n", CASES, decoded, seed);
        assertThat(decoded).as("some mutations keep a valid frame (seed 0x%x)", seed).isPositive();
        assertThat(decoded).as("most mutations break the frame (seed 0x%x)", seed).isLessThan(CASES);
    }

    @Test
    void mutatedLengthPrefixedStreamsOnlyEverThrowFrameExceptionOrEofException() {
        long seed = SEED + 2;
        Random r = new Random(seed);
        long framesRead = 0;
        long refused = 0;
        int intact = 0;
        for (int i = 0; i < CASES; i++) {
            int count = 1 + r.nextInt(4);
            List<byte[]> frames = new ArrayList<>();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            List<Integer> prefixAt = new ArrayList<>();
            for (int k = 0; k < count; k++) {
                byte[] f = randomValidFrame(r);
                frames.add(f);
                prefixAt.add(out.size());
                out.writeBytes(ByteBuffer.allocate(4).putInt(f.length).array());
                out.writeBytes(f);
            }
            byte[] stream = out.toByteArray();
            boolean mutated = r.nextInt(10) != 0;
            if (mutated) {
                if (r.nextBoolean()) { // a length field
                    stream = stream.clone();
                    int at = prefixAt.get(r.nextInt(prefixAt.size()));
                    int len = ByteBuffer.wrap(stream, at, 4).getInt();
                    int bad = switch (r.nextInt(6)) {
                        case 0 -> r.nextInt();
                        case 1 -> len + 1 + r.nextInt(8);
                        case 2 -> len - 1 - r.nextInt(8);
                        case 3 -> r.nextInt(Frame.FIXED_HEADER);
                        case 4 -> MAX_FRAME + r.nextInt(3) - 1;
                        default -> len ^ (1 << r.nextInt(32));
                    };
                    ByteBuffer.wrap(stream, at, 4).putInt(bad);
                    if (r.nextBoolean()) {
                        stream = mutate(stream, r);
                    }
                } else {
                    stream = mutate(stream, r);
                }
            }
            byte[] input = stream;
            int caseNo = i;
            Supplier<String> where = () -> where(mutated ? "stream" : "intact-stream", seed, caseNo, input);
            MemoryChannel source = r.nextInt(4) == 0 ? new MemoryChannel(stream, new Random(r.nextLong()), 1, 3) : new MemoryChannel(stream);
            FramedChannel ch = new FramedChannel(source, MAX_FRAME, 1024);
            List<byte[]> got = new ArrayList<>();
            boolean failed = false;
            int refusedHere = 0;
            for (int reads = 0; ; reads++) {
                if (reads > stream.length / 4 + 2) {
                    fail("readFrame does not progress: " + where.get());
                }
                Frame f;
                try {
                    f = ch.readFrame();
                } catch (EOFException eof) {
                    break;
                } catch (FrameException e) {
                    refused++;
                    failed = true;
                    if (++refusedHere > 3) {
                        break; // out of step for good: the rest is garbage
                    }
                    continue; // keep reading a little: the channel must still only throw these two
                } catch (IOException | RuntimeException | Error t) {
                    throw new AssertionError("unexpected " + t + ": " + where.get(), t);
                }
                framesRead++;
                if (!f.ownsArray()) {
                    fail("a frame read from the channel does not own its array: " + where.get());
                }
                byte[] again = Frame.encode(f.kind(), f.streamId(), f.offset(), f.payload());
                if (!Arrays.equals(again, f.array())) {
                    fail("re-encoding differs: " + HEX.formatHex(again) + " " + where.get());
                }
                got.add(f.array());
            }
            if (!mutated) {
                intact++;
                if (failed || got.size() != frames.size()) {
                    fail("an intact stream did not read back: " + where.get());
                }
                for (int k = 0; k < frames.size(); k++) {
                    if (!Arrays.equals(got.get(k), frames.get(k))) {
                        fail("frame " + k + " of an intact stream differs: " + where.get());
                    }
                }
            }
        }
        System.out.printf("FrameFuzzTest streams: %d cases (%d intact), %d frames read, %d refused, seed=0x%x%n", CASES, intact,
                framesRead, refused, seed);
        assertThat(framesRead).isPositive();
        assertThat(refused).isPositive();
    }
}
