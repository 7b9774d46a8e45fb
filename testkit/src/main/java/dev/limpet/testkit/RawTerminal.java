package dev.limpet.testkit;

import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The start of a test program that reads keys as a full-screen program does: its terminal in raw
 * mode without echo, bracketed paste (DECSET 2004) on when given {@code --bracketed-paste}, then
 * {@code ready} printed, so a test types only once the program reads.
 */
final class RawTerminal {
    private RawTerminal() {}

    /** Sets the terminal up as above (exits 1 when {@code stty} fails) and returns standard output. */
    static OutputStream enter(String[] args) throws IOException, InterruptedException {
        int rc = new ProcessBuilder("stty", "raw", "-echo").inheritIO().redirectInput(new File("/dev/tty")).start().waitFor();
        if (rc != 0) {
            System.err.println("stty raw -echo failed: exit " + rc);
            System.exit(1);
        }
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        if (args.length > 0 && args[0].equals("--bracketed-paste")) {
            out.write("\u001b[?2004h".getBytes(StandardCharsets.US_ASCII));
        }
        out.write("ready\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return out;
    }
}
