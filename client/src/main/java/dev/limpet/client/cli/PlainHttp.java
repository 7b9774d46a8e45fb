package dev.limpet.client.cli;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * One HTTP/1.1 exchange over a plain blocking socket, for the verbs' calls to an {@code http://}
 * daemon (the local one is always on loopback). Why not {@code java.net.http}: a verb is a JVM of
 * its own, and the JDK client loads ~280 TLS classes even for plain HTTP, and leaves its selector
 * thread in {@code epoll_wait} when the verb exits, which makes the JVM's exit wait ~300 ms for it
 * (measured: output at 270 ms, exit at 580 ms). Here the socket is closed before the verb returns.
 *
 * <p>Speaks only what the daemon answers: {@code Connection: close}, a body by
 * {@code Content-Length}, by chunks, or to end of stream; no redirects, no keep-alive.
 */
final class PlainHttp {
    private static final int MAX_BODY = 64 << 20;

    record Response(int status, String body) {}

    private PlainHttp() {}

    static Response exchange(URI uri, String method, String token, String jsonBody, Duration connectTimeout, Duration timeout)
            throws IOException {
        int port = uri.getPort() == -1 ? 80 : uri.getPort();
        String target = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        byte[] body = jsonBody == null ? new byte[0] : jsonBody.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder(256)
                .append(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: ").append(uri.getHost()).append(':').append(port).append("\r\n")
                .append("Authorization: Bearer ").append(token).append("\r\n")
                .append("Accept: application/json\r\n")
                .append("Connection: close\r\n")
                .append("Content-Length: ").append(body.length).append("\r\n");
        if (jsonBody != null) {
            head.append("Content-Type: application/json\r\n");
        }
        head.append("\r\n");
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(uri.getHost(), port), (int) connectTimeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        }
    }

    static Response read(InputStream in) throws IOException {
        String statusLine = line(in);
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new ProtocolException("not an HTTP/1.x answer: " + statusLine);
        }
        int status;
        try {
            status = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new ProtocolException("bad status line: " + statusLine);
        }
        long length = -1;
        boolean chunked = false;
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            int colon = h.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = h.substring(colon + 1).trim();
            if (name.equals("content-length")) {
                length = Long.parseLong(value);
            } else if (name.equals("transfer-encoding") && value.toLowerCase(Locale.ROOT).contains("chunked")) {
                chunked = true;
            }
        }
        ByteArrayOutputStream bodyBytes = new ByteArrayOutputStream();
        if (chunked) {
            for (long size = chunkSize(line(in)); size > 0; size = chunkSize(line(in))) {
                copy(in, bodyBytes, size);
                line(in); // the CRLF after each chunk
            }
            // trailers, up to the empty line
            for (String t = line(in); !t.isEmpty(); t = line(in)) {
                // none expected from the daemon; skipped
            }
        } else if (length >= 0) {
            copy(in, bodyBytes, length);
        } else {
            byte[] buf = new byte[8192];
            for (int n = in.read(buf); n != -1; n = in.read(buf)) {
                bodyBytes.write(buf, 0, n);
                checkSize(bodyBytes.size());
            }
        }
        return new Response(status, bodyBytes.toString(StandardCharsets.UTF_8));
    }

    private static long chunkSize(String line) throws ProtocolException {
        int semi = line.indexOf(';');
        try {
            return Long.parseLong((semi < 0 ? line : line.substring(0, semi)).trim(), 16);
        } catch (NumberFormatException e) {
            throw new ProtocolException("bad chunk size: " + line);
        }
    }

    private static void copy(InputStream in, ByteArrayOutputStream to, long n) throws IOException {
        checkSize(to.size() + n);
        byte[] buf = new byte[8192];
        while (n > 0) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, n));
            if (r == -1) {
                throw new ProtocolException("the daemon's answer ended early");
            }
            to.write(buf, 0, r);
            n -= r;
        }
    }

    private static void checkSize(long size) throws ProtocolException {
        if (size > MAX_BODY) {
            throw new ProtocolException("the daemon's answer is larger than " + MAX_BODY + " bytes");
        }
    }

    /** A header line without its CRLF; the empty string at the blank line ending the head. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(64);
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c == -1) {
                throw new ProtocolException("the daemon's answer ended early");
            }
            if (b.size() > 16384) {
                throw new ProtocolException("header line too long");
            }
            b.write(c);
        }
        String s = b.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }
}
