package dev.limpet.bench.soak;

import dev.limpet.testkit.SoakStream;

/** One session of the soak: its program, the pid it started with, and what its clients saw. */
final class SoakSession {
    final String id;
    final SoakStream.Kind kind;
    final long seed;
    final long pid;
    final StreamCheck lossless;
    /** The name of the lossless client's connection (a relayed one says so). */
    volatile String losslessClient = "?";
    /** Set before the chaos loop kills its worker: clients stop attaching to it (an attach would revive it). */
    volatile boolean workerKilled;
    /** Live clients: bytes received, frames that went back in the stream, desyncs (expected under load). */
    long liveBytes;
    long liveBackwards;
    long liveDesyncs;
    long liveNext = -1;

    SoakSession(String id, SoakStream.Kind kind, long seed, long pid) {
        this.id = id;
        this.kind = kind;
        this.seed = seed;
        this.pid = pid;
        this.lossless = new StreamCheck(kind, seed);
    }

    /** A live client's OUTPUT frame: its bytes must never go back before what it already has. */
    synchronized void onLiveOutput(long end, int len) {
        long start = end - len;
        if (liveNext >= 0 && start < liveNext) {
            liveBackwards++;
        }
        liveBytes += len;
        liveNext = Math.max(liveNext, end);
    }

    synchronized long liveSince() {
        return liveNext;
    }

    synchronized void onLiveDesync(long offset) {
        liveDesyncs++;
        liveNext = offset;
    }
}
