package dev.limpet.daemon.backend.worker;

import dev.limpet.terminal.os.PrivateFiles;
import dev.limpet.workerapi.rpc.WorkerRpc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a pty-worker JVM ({@code java <flags> -cp <runtime jar> WorkerMain}, from the
 * workers' class-data archive when one lies beside the runtime jar) and the
 * stamp of the jar it runs: a standby or dense host started with another command or jar than a
 * new worker would get now is stale. Shared by every way a worker starts (cold, standby, dense host).
 */
final class WorkerCommand {
    private final WorkerSettings settings;
    private final Path runtimeDir;
    private volatile String classPath;

    WorkerCommand(WorkerSettings settings, Path runtimeDir) {
        this.settings = settings;
        this.runtimeDir = runtimeDir;
    }

    /** A worker's command line; {@code standbyMode} adds {@code --standby}. A new list each call: callers may add to it. */
    List<String> line(boolean standbyMode) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Before the flags: an -Xmx among them (a person's own) wins.
        cmd.add("-Xmx" + settings.maxHeapMiB() + "m");
        cmd.addAll(settings.jvmFlags());
        Path cache = RuntimeJar.workerCache(classPath());
        if (cache != null) {
            cmd.addAll(WorkerSettings.withCache(cache));
        }
        cmd.addAll(List.of("-cp", classPath(), WorkerRpc.WORKER_MAIN_CLASS));
        if (standbyMode) {
            cmd.add("--standby");
        }
        return cmd;
    }

    /**
     * Starts a worker process ({@code cmd}) with its output and errors appended to {@code log}, a
     * private (0600) file created here when missing and removed again when the process cannot
     * start. Standard input stays a pipe: it is how a launch description reaches the worker.
     */
    static Process startLogged(List<String> cmd, Path log) throws IOException {
        boolean created = false;
        if (!Files.exists(log, LinkOption.NOFOLLOW_LINKS)) {
            Files.createFile(log, PosixFilePermissions.asFileAttribute(PrivateFiles.FILE_0600));
            created = true;
        }
        try {
            return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            if (created) {
                Files.deleteIfExists(log);
            }
            throw e;
        }
    }

    /** Size and modification time of a single-jar class path (a rebuilt jar makes a standby stale); 0 otherwise. */
    long jarStamp() throws IOException {
        Path jar = Path.of(classPath());
        if (!classPath().endsWith(".jar") || !Files.isRegularFile(jar)) {
            return 0;
        }
        return Files.getLastModifiedTime(jar).toMillis() * 31 + Files.size(jar);
    }

    private synchronized String classPath() throws IOException {
        if (classPath == null) {
            classPath = RuntimeJar.classPath(runtimeDir);
        }
        return classPath;
    }
}
