package dev.limpet.bench.soak;

import dev.limpet.testkit.SoakStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a lossless client of one session received, checked byte by byte against the stream the
 * session's program writes ({@link SoakStream} from the same kind and seed): the offset it has up to,
 * and every byte that was missing, delivered twice or wrong. Frames of a connection that has been
 * dropped are not counted (see {@link SoakConnection}).
 */
final class StreamCheck {
    private final SoakStream expected;
    private byte[] record = new byte[0];
    private int recordPos;
    private long next;
    private long checked;
    private long missing;
    private long duplicated;
    private long corrupt;
    private long firstCorruptAt = -1;
    private long snapshots;
    /** Gaps the daemon announced (a truncated re-attach after an absence past the lossless hold), and their snapshots. */
    private long announced;
    private long announcedSnapshots;
    /** Gaps seen in the output, start → end, until an announcement claims them (the frames may come first). */
    private final Map<Long, Long> unclaimedGaps = new HashMap<>();
    /** Announced gaps whose frames have not come yet, start → end. */
    private final Map<Long, Long> expectedGaps = new HashMap<>();
    private long desyncs;
    private final List<String> lossEvents = new ArrayList<>();
    private final Map<String, Integer> desyncReasons = new TreeMap<>();

    StreamCheck(SoakStream.Kind kind, long seed) {
        this.expected = new SoakStream(kind, seed);
    }

    /** The offset of the next byte this client needs: what it re-attaches with. */
    synchronized long next() {
        return next;
    }

    /** An OUTPUT frame whose bytes {@code buf[off, off + len)} end at stream offset {@code end}. */
    synchronized void onOutput(long end, byte[] buf, int off, int len) {
        long start = end - len;
        if (end <= next) {
            duplicated += len;
            return;
        }
        if (start < next) {
            int skip = (int) (next - start);
            duplicated += skip;
            off += skip;
            len -= skip;
            start = next;
        }
        if (start > next) {
            if (Long.valueOf(start).equals(expectedGaps.remove(next))) {
                announced += start - next;
            } else {
                missing += start - next;
                unclaimedGaps.put(next, start);
            }
            for (long n = start - next; n > 0; n--) {
                nextExpected();
            }
        }
        for (int i = 0; i < len; i++) {
            if (buf[off + i] != nextExpected()) {
                corrupt++;
                if (firstCorruptAt < 0) {
                    firstCorruptAt = start + i;
                }
            }
        }
        checked += len;
        next = end;
    }

    /** A lossless attachment desynced: not a loss by itself (the client re-attaches from its offset), but worth a look. */
    synchronized void onDesync(String reason) {
        desyncs++;
        desyncReasons.merge(reason, 1, Integer::sum);
    }

    /**
     * The daemon said, re-attaching, that bytes {@code [since, from)} are gone and sent a snapshot in
     * their place, after this client had been away longer than the lossless hold: the protocol lets a
     * session stop waiting for a lossless client silent that long, so this gap is announced, not lost.
     */
    synchronized void onAnnouncedGap(long since, long from) {
        announcedSnapshots++;
        if (from <= since) {
            return;
        }
        if (Long.valueOf(from).equals(unclaimedGaps.remove(since))) {
            missing -= from - since;
            announced += from - since;
        } else {
            expectedGaps.put(since, from);
        }
    }

    /** A re-attach that could not resume where this client was: what happened, for the report. */
    synchronized void onLossEvent(String event) {
        lossEvents.add(event);
    }

    synchronized List<String> lossEvents() {
        return List.copyOf(lossEvents);
    }

    synchronized Map<String, Integer> desyncReasons() {
        return new TreeMap<>(desyncReasons);
    }

    synchronized long desyncs() {
        return desyncs;
    }

    /** A snapshot instead of bytes: this client lost its place in the stream. */
    synchronized void onSnapshot() {
        snapshots++;
    }

    private byte nextExpected() {
        while (recordPos >= record.length) {
            record = expected.next();
            recordPos = 0;
        }
        return record[recordPos++];
    }

    synchronized long checked() {
        return checked;
    }

    /**
     * Bytes missing, delivered twice or wrong, plus snapshots sent in place of bytes, apart from the
     * gaps the daemon announced after an absence past the hold: 0 for a lossless stream.
     */
    synchronized long losses() {
        return missing + duplicated + corrupt + Math.max(0, snapshots - announcedSnapshots);
    }

    /** Bytes of the announced gaps. */
    synchronized long announced() {
        return announced;
    }

    synchronized String describe() {
        return "checked " + checked + ", next " + next + ", missing " + missing + ", duplicated " + duplicated + ", corrupt " + corrupt
                + (firstCorruptAt >= 0 ? " (first at " + firstCorruptAt + ")" : "") + ", snapshots " + snapshots + ", announced gaps " + announced + " bytes, desyncs " + desyncs + " " + desyncReasons;
    }
}
