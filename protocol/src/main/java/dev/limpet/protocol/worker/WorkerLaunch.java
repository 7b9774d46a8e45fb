package dev.limpet.protocol.worker;

import java.util.List;
import java.util.Map;

/**
 * What the daemon hands a new pty-worker on its standard input (one JSON object): never on the
 * command line, where {@code /proc/PID/cmdline} would show the control token and the environment
 * to every local user.
 *
 * @param probe           a start-up capability probe: serve hello/info/remove, write no registry entry
 * @param rpcMinor        the RPC minor the worker speaks (tests run previous-minor workers); null: current
 * @param exitTtlSeconds  after the child exits, clean up when no connection is attached for this long
 * @param orphanTtlSeconds with no daemon connected for this long, end the session and clean up
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
        Integer rpcMinor) {

    public static final int VERSION = 1;

    public WorkerLaunch {
        argv = argv == null ? List.of() : List.copyOf(argv);
        env = env == null ? Map.of() : Map.copyOf(env);
    }

    @Override
    public String toString() {
        return "WorkerLaunch[" + sessionId + " " + argv + " in " + cwd + " token=redacted]";
    }
}
