package dev.limpet.daemon.backend.worker;

import dev.limpet.terminal.os.Posix;
import dev.limpet.workerapi.link.WorkerClient;
import dev.limpet.workerapi.rpc.WorkerPayloads;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The operating system as recovery sees it: pid liveness, process start times, socket files and
 * connections. Faked in tests, where scripted answers exercise every classification.
 */
public interface WorkerOs {
    boolean isAlive(long pid);

    Optional<Instant> startTime(long pid);

    boolean exists(Path file);

    /** Whether {@code pid} runs a pty-worker (its command line names the worker's main class): never kill anything else. */
    default boolean isWorker(long pid) {
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            return false;
        }
        // The whole command line (the JDK's ProcessHandle.Info cuts long ones, and a class path is long).
        return cmdline(pid).contains(dev.limpet.workerapi.rpc.WorkerRpc.WORKER_MAIN_CLASS);
    }

    /** Whether {@code pid} is a dense worker host ({@code pty-worker --host N}): it serves other sessions too, never kill it for one. */
    default boolean isDenseHost(long pid) {
        return isWorker(pid) && cmdline(pid).contains("\0--host\0");
    }

    /** Ends {@code pid} at once (SIGKILL); nothing when it is gone. Callers check {@link #isWorker} first. */
    default void kill(long pid) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }

    /** The parent of {@code pid} while it runs; empty when it is gone. */
    default OptionalLong parent(long pid) {
        return ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(p -> OptionalLong.of(p.pid()))
                .orElse(OptionalLong.empty());
    }

    private static String cmdline(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** Connects to a worker socket; fails at once when nothing listens. */
    WorkerLink connect(Path socket) throws IOException;

    /** One connection to a worker, for the calls recovery makes. */
    interface WorkerLink extends AutoCloseable {
        WorkerPayloads.HelloResult hello(WorkerPayloads.Hello hello, Duration timeout);

        WorkerPayloads.Info info(Duration timeout);

        void remove(Duration timeout);

        /** The real client behind the link (null for fakes). */
        WorkerClient client();

        @Override
        void close();
    }

    /** The real system. */
    WorkerOs SYSTEM = new WorkerOs() {
        @Override
        public boolean isAlive(long pid) {
            return pid > 0 && pid <= Integer.MAX_VALUE && Posix.isAlive(pid);
        }

        @Override
        public Optional<Instant> startTime(long pid) {
            return pid > 0 && pid <= Integer.MAX_VALUE ? Posix.processStartTime(pid) : Optional.empty();
        }

        @Override
        public boolean exists(Path file) {
            return Files.exists(file);
        }

        @Override
        public WorkerLink connect(Path socket) throws IOException {
            WorkerClient c = WorkerClient.connect(socket);
            return new WorkerLink() {
                @Override
                public WorkerPayloads.HelloResult hello(WorkerPayloads.Hello hello, Duration timeout) {
                    return c.hello(hello, timeout);
                }

                @Override
                public WorkerPayloads.Info info(Duration timeout) {
                    return c.call(dev.limpet.workerapi.rpc.WorkerRpc.INFO, null, WorkerPayloads.Info.class, timeout);
                }

                @Override
                public void remove(Duration timeout) {
                    c.call(dev.limpet.workerapi.rpc.WorkerRpc.REMOVE, null, timeout);
                }

                @Override
                public WorkerClient client() {
                    return c;
                }

                @Override
                public void close() {
                    c.close();
                }
            };
        }
    };
}
