package dev.limpet.testkit;

import java.io.IOException;
import java.util.Locale;

/**
 * Ends in a chosen way: {@code ExitWith CODE} exits with CODE; {@code ExitWith --signal NAME}
 * (e.g. {@code TERM}, {@code KILL}) kills itself with that signal.
 */
public final class ExitWith {
    private ExitWith() {}

    @SuppressWarnings("removal")
    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length == 2 && args[0].equals("--signal")) {
            String name = args[1].toUpperCase(Locale.ROOT).replaceFirst("^SIG", "");
            try {
                // The JVM handles TERM, INT and HUP by exiting with 128+n; restore the default so
                // the signal really kills this process, as it would a native program.
                sun.misc.Signal.handle(new sun.misc.Signal(name), sun.misc.SignalHandler.SIG_DFL);
            } catch (IllegalArgumentException cannotBeHandled) {
                // KILL and STOP cannot be caught anyway.
            }
            // sun.misc.Signal.raise only raises signals with a Java handler: ask the shell's kill.
            long pid = ProcessHandle.current().pid();
            new ProcessBuilder("/bin/sh", "-c", "kill -s " + name + " " + pid).inheritIO().start().waitFor();
            Thread.sleep(10_000);
            System.exit(99); // the signal did not end this process
        }
        if (args.length != 1) {
            System.err.println("usage: ExitWith CODE | ExitWith --signal NAME");
            System.exit(64);
        }
        System.exit(Integer.parseInt(args[0]));
    }
}
