package dev.limpet.terminal.pty;

import dev.limpet.terminal.os.Errno;
import dev.limpet.terminal.os.ErrnoException;
import dev.limpet.terminal.os.Libc;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reaps one child with a blocking {@code waitpid(pid)} on a small daemon platform thread.
 *
 * <p>Why per pid: a shared {@code waitpid(-1)} reaper would also steal the exit statuses of
 * children the JDK starts through {@code ProcessBuilder}. A parked thread costs little (a small
 * stack, no CPU), and the daemon hosts at most a few hundred sessions.
 */
final class ExitWatcher {
    private static final Logger LOG = LoggerFactory.getLogger(ExitWatcher.class);
    private static final long STACK_SIZE = 256 * 1024;

    private ExitWatcher() {}

    static CompletableFuture<ExitStatus> watch(int pid) {
        CompletableFuture<ExitStatus> exit = new CompletableFuture<>();
        Thread.ofPlatform()
                .name("limpet-pty-reaper-" + pid)
                .daemon()
                .stackSize(STACK_SIZE)
                .start(() -> exit.complete(reap(pid)));
        return exit;
    }

    private static ExitStatus reap(int pid) {
        try {
            return ExitStatus.fromWaitStatus(Libc.waitpid(pid));
        } catch (ErrnoException e) {
            // ECHILD: someone else reaped it (a waitpid(-1) elsewhere in this JVM); the status is lost.
            if (e.errno() != Errno.ECHILD) {
                LOG.warn("waiting for pty child {} failed: {}", pid, e.getMessage());
            } else {
                LOG.warn("pty child {} was reaped elsewhere; its exit status is unknown", pid);
            }
            return new ExitStatus(-1, 0);
        } catch (RuntimeException | Error e) {
            LOG.error("waiting for pty child {} failed", pid, e);
            return new ExitStatus(-1, 0);
        }
    }
}
