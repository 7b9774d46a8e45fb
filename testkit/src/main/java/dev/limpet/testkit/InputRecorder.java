package dev.limpet.testkit;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Puts its terminal in raw mode without echo, turns on bracketed paste (DECSET 2004) when given
 * {@code --bracketed-paste}, prints {@code ready}, then prints each chunk it reads as one line
 * {@code read: <bytes>} with control bytes spelled out ({@code <ESC>}, {@code <CR>}): what a program
 * gets when limpet types for a person.
 */
public final class InputRecorder {
    private InputRecorder() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        OutputStream out = RawTerminal.enter(args);
        InputStream in = new FileInputStream(FileDescriptor.in);
        byte[] buf = new byte[4096];
        int n;
        while ((n = in.read(buf)) > 0) {
            StringBuilder line = new StringBuilder("read: ");
            for (int i = 0; i < n; i++) {
                int b = buf[i] & 0xff;
                line.append(switch (b) {
                    case 0x1b -> "<ESC>";
                    case '\r' -> "<CR>";
                    case '\n' -> "<LF>";
                    default -> b < 0x20 || b == 0x7f ? "<" + b + ">" : String.valueOf((char) b);
                });
            }
            out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }
}
