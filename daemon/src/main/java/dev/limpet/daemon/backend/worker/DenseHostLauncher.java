package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.backend.BackendException;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.worker.WorkerClient;
import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.protocol.worker.WorkerLaunch;
import dev.limpet.terminal.os.PrivateFiles;
import dev.limpet.worker.registry.WorkerPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.LongToIntFunction;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dense mode's spawn: the launch description goes to a host process with room ({@link DenseHosts}),
 * started here when none has, instead of a worker process of the session's own. Logs through the
 * {@link WorkerLauncher} logger, as before this class was split from it.
 */
final class DenseHostLauncher {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerLauncher.class);

    private final WorkerPaths paths;
    private final WorkerSettings settings;
    private final WorkerCommand command;
    private final HelloWait helloWait;
    private final DenseHosts hosts;

    /**
     * @param served        how many of this daemon's sessions a host (by pid) serves now
     */
    DenseHostLauncher(WorkerPaths paths, WorkerSettings settings, WorkerCommand command, HelloWait helloWait,
            LongToIntFunction served, Executor background) {
        this.paths = paths;
        this.settings = settings;
        this.command = command;
        this.helloWait = helloWait;
        this.hosts = new DenseHosts(settings.hostSessions(), this::newHost, served, background);
    }

    /** Starts a warm host in the background unless a current one has room (see {@link DenseHosts#warm}). */
    void warm() {
        try {
            hosts.warm(current());
        } catch (IOException e) {
            LOG.warn("cannot start a warm worker host: {}", e.toString());
        }
    }

    /** How a host this daemon fed died, when it did (for the reason its sessions are lost). */
    Optional<String> exitOf(long pid) {
        return hosts.exitOf(pid);
    }

    /** Hosts that run what a new host would: this jar, these flags. */
    private Predicate<DenseHosts.Host> current() throws IOException {
        List<String> cmd = hostCommand();
        long stamp = command.jarStamp();
        return h -> h.command().equals(cmd) && h.jarStamp() == stamp;
    }

    /** Starts the session of {@code launch} in a host; {@code log} is the session's own log, where a host reports a refusal. */
    WorkerLauncher.Launched launch(WorkerLaunch launch, Path log) {
        String id = launch.sessionId();
        DenseHosts.Slot slot;
        byte[] json;
        try {
            PrivateFiles.directory(paths.socket(id).getParent());
            Files.deleteIfExists(log);
            Files.createFile(log, PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_0600));
            json = WorkerCodec.mapper().writeValueAsBytes(launch);
            slot = hosts.reserve(current());
        } catch (IOException e) {
            throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "cannot start a pty-worker host for " + id + ": " + e.getMessage(), e);
        }
        try {
            try {
                hosts.send(slot, json);
            } catch (IOException e) {
                hosts.drop(slot.host, "it did not take a launch description (" + e.getMessage() + ")");
                throw new BackendException(ErrorCode.BACKEND_UNAVAILABLE, "the pty-worker host pid " + slot.host.pid()
                        + " did not take the session " + id + ": " + e.getMessage(), e);
            }
            WorkerClient client = helloWait.await(slot.host.process(), id, launch.controlToken(), false);
            return new WorkerLauncher.Launched(client, launch.controlToken(), slot.host.pid(), paths.socket(id),
                    () -> hosts.settle(slot));
        } catch (RuntimeException e) {
            hosts.settle(slot);
            Process host = slot.host.process();
            if (!host.isAlive()) {
                // The host itself died (a JVM that cannot start, a crash): its own log says why.
                throw new BackendException(ErrorCode.SPAWN_FAILED, HelloWait.lastLine(slot.host.log(), "the pty-worker host exited with status "
                        + host.exitValue()) + " (see " + slot.host.log() + ")", e);
            }
            throw e;
        }
    }

    /** The pids of the hosts this daemon feeds (tests). */
    List<Long> pids() {
        return hosts.pids();
    }

    /** Lets the hosts go: they serve their sessions on but take no new one. */
    void close() {
        hosts.close();
    }

    private DenseHosts.Host newHost() throws IOException {
        PrivateFiles.directory(paths.logDir());
        Path log = paths.logDir().resolve(DenseHosts.LOG_PREFIX + WorkerLauncher.newToken().substring(0, 16) + ".log");
        List<String> cmd = hostCommand();
        // Standard input stays open: launches arrive on it, and its end tells the host this daemon is gone.
        Process p = WorkerCommand.startLogged(cmd, log);
        Path named = paths.logDir().resolve(DenseHosts.LOG_PREFIX + p.pid() + ".log");
        try {
            // The open descriptor follows the rename: the log is found by the host's pid.
            Files.move(log, named, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            log = named;
        } catch (IOException e) {
            LOG.warn("cannot name the log of worker host pid {} after it: {}", p.pid(), e.toString());
        }
        return new DenseHosts.Host(p, log, cmd, command.jarStamp());
    }

    private List<String> hostCommand() throws IOException {
        List<String> cmd = command.line(false);
        cmd.addAll(List.of("--host", Integer.toString(settings.hostSessions())));
        return cmd;
    }
}
