package dev.limpet.it;

import java.nio.file.Path;

/** {@link WorkerProcesses} for test packages below this one. */
public final class WorkerProcessesAccess {
    private WorkerProcessesAccess() {}

    /** Kills every pty-worker of {@code root}, and everything they run, with SIGKILL. */
    public static void killAll(Path root) {
        WorkerProcesses.killAll(root);
    }
}
