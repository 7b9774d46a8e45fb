package dev.limpet.testkit;

import java.io.IOException;

/**
 * Ends in a chosen way: {@code ExitWith CODE} exits with CODE; {@code ExitWith --signal NAME}
 * (e.g. {@code TERM}, {@code KILL}) kills itself with that signal.
 */
public final class ExitWith {
    private ExitWith() {}

    @SuppressWarnings("removal")
    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length == 2 && args[0].equals("--signal")) {
            String name = args[1];
            try {
                // The JVM handles TERM, INT and HUP by exiting with 128+n; restore the default so
                // the signal really kills this process, as it would a native program.
                sun.misc.Signal signal = new sun.misc.Signal(name);
                sun.misc.Signal.handle(signal, sun.misc.SignalHandler.SIG_DFL);
                sun.misc.Signal.raise(signal);
            } catch (IllegalArgumentException e) {
                // KILL and STOP cannot be handled or raised through sun.misc.Signal: ask kill(1).
                new ProcessBuilder("kill", "-s", name, Long.toString(ProcessHandle.current().pid())).inheritIO().start().waitFor();
            }
            Thread.sleep(10_000);
            System.exit(99); // the signal did not arrive
        }
        if (args.length != 1) {
            System.err.println("usage: ExitWith CODE | ExitWith --signal NAME");
            System.exit(64);
        }
        System.exit(Integer.parseInt(args[0]));
    }
}
