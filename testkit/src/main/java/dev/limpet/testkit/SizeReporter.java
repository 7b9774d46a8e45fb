package dev.limpet.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Prints {@code size COLSxROWS} of its controlling terminal at start and after every SIGWINCH,
 * then runs until killed or its terminal is hung up.
 *
 * <p>Pure Java (testkit has no native code): the size comes from {@code stty size} run against
 * {@code /dev/tty}.
 */
public final class SizeReporter {
    private SizeReporter() {}

    @SuppressWarnings("removal")
    public static void main(String[] args) throws InterruptedException {
        sun.misc.Signal.handle(new sun.misc.Signal("WINCH"), signal -> report());
        report();
        Thread.sleep(Long.MAX_VALUE);
    }

    private static synchronized void report() {
        try {
            Process stty = new ProcessBuilder("stty", "size")
                    .redirectInput(new File("/dev/tty"))
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            String[] rowsCols = new String(stty.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim().split("\\s+");
            stty.waitFor();
            System.out.println("size " + rowsCols[1] + "x" + rowsCols[0]);
            System.out.flush();
        } catch (IOException | RuntimeException e) {
            System.out.println("size error: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
