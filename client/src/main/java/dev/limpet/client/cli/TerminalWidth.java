package dev.limpet.client.cli;

import java.io.Console;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * How wide the terminal a verb prints to is, so a table can cut its last column instead of
 * wrapping. Empty when the output is not a terminal (a pipe, a file): there nothing is cut. Asks
 * {@code stty size} on the terminal rather than loading the native terminal code: a verb's JVM
 * should load little, and this runs once.
 */
final class TerminalWidth {
    private TerminalWidth() {}

    static OptionalInt ofOutput() {
        Console console = System.console();
        if (console == null || !console.isTerminal()) {
            return OptionalInt.empty();
        }
        OptionalInt columns = parse(System.getenv("COLUMNS"));
        if (columns.isPresent()) {
            return columns;
        }
        try {
            Process p = new ProcessBuilder("stty", "size").redirectInput(new File("/dev/tty"))
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            if (!p.waitFor(2, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return OptionalInt.empty();
            }
            String[] rowsCols = out.split("\\s+");
            return rowsCols.length == 2 ? parse(rowsCols[1]) : OptionalInt.empty();
        } catch (IOException e) {
            return OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalInt.empty();
        }
    }

    static OptionalInt parse(String value) {
        if (value == null || !value.matches("\\d{1,4}")) {
            return OptionalInt.empty();
        }
        int n = Integer.parseInt(value);
        return n >= 20 ? OptionalInt.of(n) : OptionalInt.empty();
    }
}
