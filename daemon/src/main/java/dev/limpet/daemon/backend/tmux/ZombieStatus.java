package dev.limpet.daemon.backend.tmux;

import dev.limpet.terminal.pty.ExitStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The exit status of a process that ended but is not reaped yet, from {@code /proc/<pid>/stat}
 * (state {@code Z}; field 52, {@code exit_code}, as {@code waitpid} reports it; Linux 3.5+). tmux
 * sometimes marks a pane dead (its terminal closed) well before it reaps the program; the daemon
 * is not the parent, so this is how it can still tell how the program ended.
 */
final class ZombieStatus {
    private ZombieStatus() {}

    /** Null when the process is not a zombie (running, reaped, or unreadable). */
    static ExitStatus of(long pid) {
        try {
            return parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static ExitStatus parse(String stat) {
        // "pid (comm) S ..." where comm may hold spaces and parentheses: fields start after the last ')'.
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return null;
        }
        String[] f = stat.substring(close + 1).strip().split(" ");
        // f[0] is field 3 (state); exit_code is field 52.
        if (f.length < 50 || !f[0].equals("Z")) {
            return null;
        }
        return ExitStatus.fromWaitStatus(Integer.parseInt(f[49]));
    }
}
