package dev.limpet.it;

import java.nio.file.Path;

/** Finds the pty-workers of one data root (by the runtime jar they run from) to clean up after a test. */
final class WorkerProcesses {
    private WorkerProcesses() {}

    static void killAll(Path root) {
        String marker = root.toAbsolutePath().normalize().resolve("runtime").toString();
        ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().map(c -> c.contains(marker) && c.contains("WorkerMain")).orElse(false))
                .forEach(p -> {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                });
    }

    static long count(Path root) {
        String marker = root.toAbsolutePath().normalize().resolve("runtime").toString();
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().map(c -> c.contains(marker) && c.contains("WorkerMain")).orElse(false))
                .count();
    }
}
