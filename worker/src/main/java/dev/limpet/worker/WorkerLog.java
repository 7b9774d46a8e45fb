package dev.limpet.worker;

import java.io.PrintStream;
import java.time.Instant;

/**
 * The worker's own log lines, on standard error (the daemon points it at
 * {@code <worker_root>/log/<session>.log}). A logging framework would cost every worker start-up
 * time and memory for a handful of lifecycle lines. Never logs PTY payloads.
 */
public final class WorkerLog {
    private WorkerLog() {}

    public static void info(String format, Object... args) {
        write("INFO ", format, args);
    }

    public static void warn(String format, Object... args) {
        write("WARN ", format, args);
    }

    /** Replaces each {@code {}} with the next argument, as SLF4J does. */
    static String format(String format, Object... args) {
        StringBuilder sb = new StringBuilder(format.length() + 32);
        int arg = 0;
        int from = 0;
        int at;
        while ((at = format.indexOf("{}", from)) >= 0) {
            sb.append(format, from, at).append(arg < args.length ? String.valueOf(args[arg++]) : "{}");
            from = at + 2;
        }
        return sb.append(format, from, format.length()).toString();
    }

    private static void write(String level, String format, Object... args) {
        PrintStream err = System.err;
        synchronized (err) {
            err.println(Instant.now() + " " + level + format(format, args));
            err.flush();
        }
    }
}
