package dev.limpet.protocol.worker;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * What the daemon hands a new pty-worker on its standard input (one JSON object): never on the
 * command line, where {@code /proc/PID/cmdline} would show the control token and the environment
 * to every local user.
 *
 * @param probe           a start-up capability probe: serve hello/info/remove, write no registry entry
 * @param rpcMinor        the RPC minor the worker speaks (tests run workers of the previous minor); null: current
 * @param exitTtlSeconds  after the child exits, clean up when no connection is attached for this long
 * @param orphanTtlSeconds with no daemon connected for this long, end the session and clean up
 * @param journalPath     where the worker appends the session's output (a revive's history); null: no journal
 * @param journalLimitBytes the journal's cap (the file and its one rotated predecessor together)
 * @param restoredHistory a revived session's history (the journal's tail), shown before its output; may be null
 * @param restoredMarker  the line shown after the history and written to the journal, e.g.
 *                        {@code ── restored <time>: the previous process ended ──}; may be null
 */
public record WorkerLaunch(
        int version,
        String daemonInstanceId,
        String sessionId,
        List<String> argv,
        Map<String, String> env,
        String cwd,
        int cols,
        int rows,
        int ringBytes,
        String registryPath,
        String socketPath,
        String controlToken,
        long ownerPid,
        String ownerStartedAt,
        String ownerNonce,
        long exitTtlSeconds,
        long orphanTtlSeconds,
        boolean probe,
        Integer rpcMinor,
        // Additive: an absent field (an older daemon's launch) is no journal and no history.
        String journalPath,
        long journalLimitBytes,
        byte[] restoredHistory,
        String restoredMarker) {

    public static final int VERSION = 1;

    public WorkerLaunch {
        argv = argv == null ? List.of() : List.copyOf(argv);
        env = env == null ? Map.of() : Map.copyOf(env);
    }

    public WorkerLaunch(int version, String daemonInstanceId, String sessionId, List<String> argv, Map<String, String> env, String cwd,
            int cols, int rows, int ringBytes, String registryPath, String socketPath, String controlToken, long ownerPid,
            String ownerStartedAt, String ownerNonce, long exitTtlSeconds, long orphanTtlSeconds, boolean probe, Integer rpcMinor) {
        this(version, daemonInstanceId, sessionId, argv, env, cwd, cols, rows, ringBytes, registryPath, socketPath, controlToken, ownerPid,
                ownerStartedAt, ownerNonce, exitTtlSeconds, orphanTtlSeconds, probe, rpcMinor, null, 0, null, null);
    }

    /** The same launch with a journal and, for a revived session, the history shown first. */
    public WorkerLaunch withJournal(String path, long limitBytes, byte[] history, String marker) {
        return new WorkerLaunch(version, daemonInstanceId, sessionId, argv, env, cwd, cols, rows, ringBytes, registryPath, socketPath,
                controlToken, ownerPid, ownerStartedAt, ownerNonce, exitTtlSeconds, orphanTtlSeconds, probe, rpcMinor, path, limitBytes,
                history, marker);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WorkerLaunch w && toComparable().equals(w.toComparable());
    }

    @Override
    public int hashCode() {
        return toComparable().hashCode();
    }

    private List<Object> toComparable() {
        return Arrays.asList(version, daemonInstanceId, sessionId, argv, env, cwd, cols, rows, ringBytes, registryPath, socketPath,
                controlToken, ownerPid, ownerStartedAt, ownerNonce, exitTtlSeconds, orphanTtlSeconds, probe, rpcMinor, journalPath,
                journalLimitBytes, restoredHistory == null ? null : HexFormat.of().formatHex(restoredHistory), restoredMarker);
    }

    @Override
    public String toString() {
        return "WorkerLaunch[" + sessionId + " " + argv + " in " + cwd + " token=redacted]";
    }
}
