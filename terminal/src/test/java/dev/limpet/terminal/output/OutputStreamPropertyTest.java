package dev.limpet.terminal.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.stream.OutputChunk;
import dev.limpet.protocol.stream.Splice;
import dev.limpet.testkit.Seeds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Properties of a session's output stream as the data planes build it: an {@link OutputLog}
 * (a ring that starts small and grows lazily up to its capacity) fed with chunks of any size, and
 * clients that attach at any time with any {@code since}, join the replay to live output through a
 * {@link Splice} (live chunks arrive while the replay is being queued, as in the daemon), detach and
 * resume from the last offset they have. Whatever the interleaving, each client receives the
 * stream without a gap or a duplicate, every byte the right one; bytes that left the ring before a
 * client asked for them are reported (truncated), never skipped silently.
 *
 * <p>Stream byte {@code n} is {@link #streamByte(long)}, so any byte can be checked by its offset.
 * Each property runs over many seeded random cases; a failing case names its seed.
 */
class OutputStreamPropertyTest {

    static byte streamByte(long n) {
        return (byte) (n * 31 + (n >>> 8) * 7 + (n >>> 16));
    }

    static byte[] streamBytes(long from, int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = streamByte(from + i);
        }
        return b;
    }

    /** One thing that happens to a session's stream. */
    sealed interface Step {}

    /** The program writes {@code length} bytes: appended to the log, offered to every attached client. */
    record Append(int length) implements Step {}

    /** A client attaches: {@code since} chosen by {@code sinceChoice} (see {@link Session#since}). */
    record Attach(int sinceChoice) implements Step {}

    /** The attach reply is queued: the replay read from the log, in frames of at most {@code frame} bytes. */
    record QueueReplay(int client, int frame) implements Step {}

    /** The replay has been queued: held live output passes on. */
    record Release(int client) implements Step {}

    /** A client goes away and comes back with the last offset it has. */
    record Resume(int client) implements Step {}

    /** Any reader reads the log directly. */
    record Read(int sinceChoice, int max) implements Step {}

    /** Tiny rings, rings below the initial 64 KiB, and rings that grow past it. */
    static int capacity(SplittableRandom r) {
        int pick = r.nextInt(7);
        return pick < 2 ? r.nextInt(1, 65) : pick < 5 ? r.nextInt(65, 20_001) : r.nextInt(64 * 1024 - 100, 300_001);
    }

    /** Mostly small writes, some medium, a few large ones. */
    static int length(SplittableRandom r) {
        int pick = r.nextInt(10);
        return pick < 6 ? r.nextInt(301) : pick < 9 ? r.nextInt(300, 20_001) : r.nextInt(20_000, 400_001);
    }

    static List<Step> steps(SplittableRandom r) {
        List<Step> steps = new ArrayList<>();
        int n = r.nextInt(1, 61);
        for (int i = 0; i < n; i++) {
            int pick = r.nextInt(20);
            steps.add(pick < 8 ? new Append(length(r))
                    : pick < 11 ? new Attach(r.nextInt(5001))
                    : pick < 14 ? new QueueReplay(r.nextInt(6), r.nextInt(1, 100_001))
                    : pick < 17 ? new Release(r.nextInt(6))
                    : pick < 18 ? new Resume(r.nextInt(6))
                    : new Read(r.nextInt(5001), r.nextInt(100_001)));
        }
        return steps;
    }

    @Test
    void everyClientReceivesTheStreamWithoutGapOrDuplicate() {
        Seeds.check(250, OutputStreamPropertyTest::everyClientReceivesTheStream);
    }

    static void everyClientReceivesTheStream(SplittableRandom r) {
        int capacity = capacity(r);
        List<Step> steps = steps(r);
        Session session = new Session(capacity);
        for (Step s : steps) {
            session.apply(s);
        }
        // Every attach completes eventually: the replay is queued, then live output released.
        for (Client c : session.clients) {
            session.queueReplay(c, 256 * 1024);
            session.release(c);
        }
        session.append(1 + capacity / 3);
        for (Client c : session.clients) {
            assertThat(c.received).as("client %d ends where the stream ends", c.id).isEqualTo(session.log.endOffset());
        }
    }

    @Test
    void readsMatchAModelOfTheStreamHowEverTheRingGrew() {
        Seeds.check(200, OutputStreamPropertyTest::readsMatchAModel);
    }

    static void readsMatchAModel(SplittableRandom r) {
        int capacity = capacity(r);
        List<Integer> appends = r.ints(r.nextInt(31), 0, 150_001).boxed().toList();
        List<Integer> sinces = r.ints(r.nextInt(9), 0, 300_001).boxed().toList();
        int max = r.nextInt(70_001);
        OutputLog log = new OutputLog(capacity);
        long end = 0;
        byte[] scratch = new byte[Math.max(1, max)];
        for (int i = 0; i < appends.size(); i++) {
            int len = appends.get(i);
            assertThat(log.append(streamBytes(end, len), 0, len)).isEqualTo(end + len);
            end += len;
            long start = Math.max(0, end - capacity);
            assertThat(log.startOffset()).isEqualTo(start);
            assertThat(log.endOffset()).isEqualTo(end);
            for (int since : sinces) {
                long s = since % (end + 2) - 1; // -1 … end: "nothing yet" included
                OutputLog.Slice slice = log.read(s, max);
                long from = Math.max(s, start);
                assertThat(slice.from()).isEqualTo(from);
                assertThat(slice.truncated()).isEqualTo(s < start);
                assertThat(slice.data()).isEqualTo(streamBytes(from, (int) Math.min(end - from, max)));
                int n = log.readInto(s, scratch, max);
                assertThat(n).isEqualTo(slice.data().length);
                assertThat(Arrays.mismatch(scratch, 0, n, slice.data(), 0, n)).as("readInto differs from read at").isEqualTo(-1);
            }
            long ahead = end + 1;
            assertThatThrownBy(() -> log.read(ahead, 1)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** A data plane (as PtySession) with the clients attached to it, and what each has received. */
    static final class Session {
        final OutputLog log;
        final List<Client> clients = new ArrayList<>();

        Session(int capacity) {
            log = new OutputLog(capacity);
        }

        void apply(Step step) {
            switch (step) {
                case Append a -> append(a.length());
                case Attach a -> attach(since(a.sinceChoice()));
                case QueueReplay q -> client(q.client()).ifPresent(c -> queueReplay(c, q.frame()));
                case Release r -> client(r.client()).ifPresent(this::release);
                case Resume r -> client(r.client()).ifPresent(this::resume);
                case Read r -> read(since(r.sinceChoice()), r.max());
            }
        }

        Optional<Client> client(int i) {
            return clients.isEmpty() ? Optional.empty() : Optional.of(clients.get(i % clients.size()));
        }

        /** Nothing yet (-1), the stream's start, a ring boundary, the end, or anything between. */
        long since(int choice) {
            long end = log.endOffset();
            return switch (choice % 5) {
                case 0 -> -1;
                case 1 -> 0;
                case 2 -> log.startOffset();
                case 3 -> end;
                default -> end == 0 ? 0 : choice % (end + 1);
            };
        }

        void append(int length) {
            long from = log.endOffset();
            byte[] data = streamBytes(from, length);
            // As PtySession: append and fan out under one lock, each client's splice holding or passing.
            OutputChunk chunk = OutputChunk.of(data, log.append(data, 0, length));
            for (Client c : clients) {
                Splice.Outcome o = c.splice.offer(chunk, c::accept);
                assertThat(o).as("client %d: a live chunk never leaves a gap", c.id).isNotIn(Splice.Outcome.GAP, Splice.Outcome.REFUSED);
            }
        }

        void attach(long since) {
            Client c = new Client(clients.size(), since);
            clients.add(c);
        }

        void queueReplay(Client c, int frame) {
            if (c.replayEnd >= 0) {
                return;
            }
            // The replay is read in one go (under the session lock in the data planes) and cut into frames.
            long end = log.endOffset();
            // The model's ring start, independent of the log's own bookkeeping.
            long start = Math.max(0, end - log.capacity());
            assertThat(log.startOffset()).isEqualTo(start);
            long from = c.since < 0 ? start : Math.max(c.since, start);
            c.truncated = c.since < 0 ? start > 0 : c.since < start;
            c.firstExpected = from;
            long at = from;
            while (at < end) {
                OutputLog.Slice s = log.read(at, frame);
                assertThat(s.from()).isEqualTo(at);
                assertThat(s.truncated()).isFalse();
                c.accept(OutputChunk.of(s.data(), s.to()));
                at = s.to();
            }
            c.replayEnd = end;
        }

        void release(Client c) {
            if (c.replayEnd < 0 || !c.splice.holdingNow()) {
                return;
            }
            assertThat(c.splice.release(c.replayEnd, c::accept)).isEqualTo(Splice.Outcome.PASSED);
        }

        /** The client drops its connection and re-attaches with what it has: a new splice from there. */
        void resume(Client c) {
            c.splice.stop();
            c.splice = Splice.holding();
            c.since = c.received < 0 ? c.since : c.received;
            c.replayEnd = -1;
            c.firstExpected = -1;
            c.awaitingFirst = true;
        }

        void read(long since, int max) {
            OutputLog.Slice s = log.read(since, max);
            assertThat(s.data()).isEqualTo(streamBytes(s.from(), s.data().length));
        }
    }

    /**
     * One client: the offset it has received up to (-1: nothing yet), checked byte by byte. After an
     * attach, the first byte must be the one asked for, or the oldest one the ring still holds when
     * that one is gone (and then the client is told: {@code truncated}); every later byte follows the
     * one before.
     */
    static final class Client {
        final int id;
        long since;
        Splice splice = Splice.holding();
        long replayEnd = -1;
        long received = -1;
        /** Where the first byte after the current attach must be; -1 until the replay is read. */
        long firstExpected = -1;
        boolean awaitingFirst = true;
        boolean truncated;

        Client(int id, long since) {
            this.id = id;
            this.since = since;
        }

        boolean accept(OutputChunk chunk) {
            byte[] bytes = chunk.bytes();
            long start = chunk.startOffset();
            if (awaitingFirst) {
                assertThat(firstExpected).as("client %d: output before its replay was read", id).isGreaterThanOrEqualTo(0);
                assertThat(start).as("client %d: first byte after attaching with since=%d", id, since).isEqualTo(firstExpected);
                awaitingFirst = false;
            } else if (start > received) {
                throw new AssertionError("client " + id + ": gap " + received + ".." + start);
            } else if (start < received) {
                throw new AssertionError("client " + id + ": bytes " + start + ".." + received + " delivered twice");
            }
            assertThat(bytes).as("client %d bytes at %d", id, start).isEqualTo(streamBytes(start, bytes.length));
            received = chunk.endOffset();
            return true;
        }
    }
}
