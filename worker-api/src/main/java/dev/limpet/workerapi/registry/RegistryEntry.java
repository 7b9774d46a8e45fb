package dev.limpet.workerapi.registry;

import java.util.List;

/**
 * One worker's registry file, {@code registry/<session_id>.json}: how a restarted daemon finds and
 * validates it. Written only by the worker (tmp + atomic rename, 0600). Timestamps are ISO-8601;
 * process start times come from {@code /proc} so that a recycled pid is told apart from the
 * original process.
 *
 * @param version          schema version ({@link #VERSION})
 * @param workerStartedAt  the worker process's start time (pid-reuse check)
 * @param ownerPid         the daemon process that owns the worker now (the owner lease)
 * @param ownerStartedAt   that daemon's process start time
 * @param ownerNonce       random per daemon run
 */
public record RegistryEntry(
        int version,
        String daemonInstanceId,
        String sessionId,
        long workerPid,
        String workerStartedAt,
        long childPid,
        String socketPath,
        List<String> command,
        String cwd,
        String startedAt,
        String controlToken,
        int rpcMajor,
        int rpcMinor,
        String workerVersion,
        long ownerPid,
        String ownerStartedAt,
        String ownerNonce) {

    public static final int VERSION = 1;

    public RegistryEntry {
        command = command == null ? List.of() : List.copyOf(command);
    }

    public RegistryEntry withOwner(long pid, String startedAt, String nonce) {
        return new RegistryEntry(version, daemonInstanceId, sessionId, workerPid, workerStartedAt, childPid, socketPath, command,
                cwd, this.startedAt, controlToken, rpcMajor, rpcMinor, workerVersion, pid, startedAt, nonce);
    }

    @Override
    public String toString() {
        return "RegistryEntry[" + sessionId + " worker " + workerPid + " child " + childPid + " owner " + ownerPid
                + " daemon " + daemonInstanceId + " token=redacted]";
    }
}
