package dev.limpet.testkit;

import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Puts its terminal in raw mode without echo ({@code stty raw -echo}), prints {@code ready\r\n},
 * then writes every byte it reads straight back, unbuffered: the far end of keystroke-latency
 * benchmarks. Exits 0 at end of input or when its terminal goes away.
 */
public final class RawEcho {
    private RawEcho() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        int rc = new ProcessBuilder("stty", "raw", "-echo")
                .inheritIO()
                .redirectInput(new File("/dev/tty"))
                .start().waitFor();
        if (rc != 0) {
            System.err.println("stty raw -echo failed: exit " + rc);
            System.exit(1);
        }
        InputStream in = new FileInputStream(FileDescriptor.in);
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        out.write("ready\r\n".getBytes(StandardCharsets.US_ASCII));
        byte[] buf = new byte[4096];
        try {
            for (int n; (n = in.read(buf)) > 0; ) {
                out.write(buf, 0, n);
            }
        } catch (IOException e) {
            // EIO: the terminal was hung up; nothing left to echo to.
        }
    }
}
