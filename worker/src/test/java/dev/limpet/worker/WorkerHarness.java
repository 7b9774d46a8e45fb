package dev.limpet.worker;

import dev.limpet.protocol.worker.WorkerClient;
import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerLaunch;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.testkit.TestPrograms;
import dev.limpet.worker.registry.WorkerPaths;
import dev.limpet.worker.registry.WorkerRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Starts real pty-worker processes for tests, the way the daemon does (launch JSON on stdin). */
final class WorkerHarness implements AutoCloseable {
    static final String DAEMON_ID = "d-00000000000000aa";
    static final String TOKEN = "test-token";
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** A worker JVM's start on a loaded 2-core machine may take many seconds: a generous bound, not a timing goal. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    final WorkerRegistry registry;
    private final List<Process> processes = new ArrayList<>();

    WorkerHarness(Path root) throws IOException {
        registry = new WorkerRegistry(new WorkerPaths(root));
        registry.ensureDirectories();
    }

    Process start(String id, List<String> argv, Integer rpcMinor, long exitTtlSeconds) throws IOException {
        WorkerPaths p = registry.paths();
        WorkerLaunch launch = new WorkerLaunch(WorkerLaunch.VERSION, DAEMON_ID, id, argv, Map.of("TERM", "xterm-256color",
                "PATH", System.getenv("PATH")), System.getProperty("java.io.tmpdir"), 80, 24, 1 << 16, p.registry(id).toString(),
                p.socket(id).toString(), TOKEN, ProcessHandle.current().pid(), null, "n", exitTtlSeconds, 3600, false, rpcMinor);
        List<String> cmd = new ArrayList<>(List.of(TestPrograms.javaExecutable().toString(), "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Xshare:auto", "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), WorkerMain.class.getName()));
        Process proc = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(p.log(id).toFile())).start();
        processes.add(proc);
        try (OutputStream in = proc.getOutputStream()) {
            in.write(WorkerCodec.mapper().writeValueAsBytes(launch));
        }
        return proc;
    }

    WorkerClient connect(String id) throws Exception {
        Path sock = registry.paths().socket(id);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            if (Files.exists(registry.paths().registry(id))) {
                try {
                    return WorkerClient.connect(sock);
                } catch (IOException e) {
                    // not listening yet
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("worker " + id + " did not start; log:\n" + Files.readString(registry.paths().log(id)));
            }
            Thread.sleep(5);
        }
    }

    WorkerClient connectAndHello(String id) throws Exception {
        WorkerClient c = connect(id);
        c.hello(hello(WorkerRpc.RPC_MINOR), TIMEOUT);
        return c;
    }

    /** A connection as a daemon of the previous {@code minor} makes it (keys as {@code input} requests). */
    WorkerClient connectAndHello(String id, int minor) throws Exception {
        connect(id).close(); // waits for the socket
        WorkerClient c = WorkerClient.connect(registry.paths().socket(id), minor);
        c.hello(hello(minor), TIMEOUT);
        return c;
    }

    static WorkerPayloads.Hello hello(int minor) {
        return new WorkerPayloads.Hello(WorkerRpc.RPC_MAJOR, minor, DAEMON_ID, TOKEN, null, null, null);
    }

    @Override
    public void close() {
        for (Process p : processes) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}
