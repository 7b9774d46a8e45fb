package dev.limpet.daemon.backend.worker;

import dev.limpet.terminal.os.Posix;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;

/**
 * The daemon process that owns a worker: pid, that process's start time, and a nonce per daemon
 * run. A lease is <em>provably stale</em> when its pid is dead or now names a process that
 * started at another time; only then may another daemon reclaim the worker.
 */
public record OwnerLease(long pid, String startedAt, String nonce) {

    /** This daemon process's lease. */
    public static OwnerLease current() {
        long pid = ProcessHandle.current().pid();
        byte[] n = new byte[8];
        new SecureRandom().nextBytes(n);
        return new OwnerLease(pid, Posix.processStartTime(pid).map(Instant::toString).orElse(null), HexFormat.of().formatHex(n));
    }

    /** True only with proof: the owner pid is dead, or alive with a different start time. */
    public static boolean provablyStale(long ownerPid, String ownerStartedAt, WorkerOs os) {
        if (ownerPid <= 0 || ownerPid > Integer.MAX_VALUE) {
            return false; // no lease recorded: nothing proves anything
        }
        if (!os.isAlive(ownerPid)) {
            return true;
        }
        String now = os.startTime(ownerPid).map(Instant::toString).orElse(null);
        return ownerStartedAt != null && now != null && !now.equals(ownerStartedAt);
    }
}
