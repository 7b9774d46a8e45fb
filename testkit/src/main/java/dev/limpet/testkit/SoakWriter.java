package dev.limpet.testkit;

import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A soak session's program: puts its terminal in raw mode without echo and writes
 * {@link SoakStream}'s records for {@code KIND SEED}, pausing between them, until it reads {@code q}
 * on its input; then it stays alive, quiet, so the soak can compare what every client received with
 * the whole stream. Usage: {@code SoakWriter counter|burst|redraw SEED}.
 */
public final class SoakWriter {
    private SoakWriter() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        SoakStream stream = new SoakStream(SoakStream.kind(args[0]), Long.parseLong(args[1]));
        int rc = new ProcessBuilder("stty", "raw", "-echo").inheritIO().redirectInput(new File("/dev/tty")).start().waitFor();
        if (rc != 0) {
            System.err.println("stty raw -echo failed: exit " + rc);
            System.exit(1);
        }
        Thread stopper = Thread.ofPlatform().daemon().start(() -> {
            try (FileInputStream in = new FileInputStream(FileDescriptor.in)) {
                for (int b; (b = in.read()) >= 0; ) {
                    if (b == 'q') {
                        return;
                    }
                }
            } catch (IOException e) {
                // the terminal went away: stop writing
            }
        });
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        while (stopper.isAlive()) {
            out.write(stream.next());
            out.flush();
            stopper.join(stream.pauseMillis());
        }
        Thread.sleep(Long.MAX_VALUE);
    }
}
