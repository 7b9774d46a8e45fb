package dev.limpet.testkit;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Shows its state in the terminal title as coding agents do: a braille spinner at the
 * title's start while it works, a steady title while it waits. It never prints while it works, so
 * only the title tells.
 *
 * <p>Usage: {@code TitleSpinner SPIN_MILLIS}. Sets the title {@code ✳ ready} and prints
 * {@code ready}; each line it reads then spins the title ({@code ⠋ working} … every 80 ms) for
 * SPIN_MILLIS, sets {@code ✳ done} and prints {@code done <n>}. The line {@code spin} spins until
 * the next line instead.
 */
public final class TitleSpinner {
    static final String FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

    private TitleSpinner() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        long spinMillis = Long.parseLong(args[0]);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        title(out, "✳ ready");
        out.print("ready\r\n");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int n = 0;
        boolean spinning = false;
        for (String line; (line = in.readLine()) != null; ) {
            n++;
            if (spinning) {
                spinning = false;
            } else if (line.strip().equals("spin")) {
                spinning = true;
                title(out, FRAMES.charAt(0) + " working");
                continue;
            } else {
                long end = System.nanoTime() + spinMillis * 1_000_000;
                for (int f = 0; System.nanoTime() < end; f++) {
                    title(out, FRAMES.charAt(f % FRAMES.length()) + " working");
                    Thread.sleep(80);
                }
            }
            title(out, "✳ done");
            out.print("done " + n + "\r\n");
        }
    }

    private static void title(PrintStream out, String title) {
        out.print("\u001b]0;" + title + "\u0007");
        out.flush();
    }
}
