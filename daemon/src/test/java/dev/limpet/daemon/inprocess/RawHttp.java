package dev.limpet.daemon.inprocess;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One HTTP/1.1 exchange written by hand, so a test can send what a browser or an attacker would
 * (any Host, Origin or subprotocol) and read the answer's exact status, headers and body.
 */
final class RawHttp {
    record Answer(int status, String head, String body) {
        /** The value of the first header {@code name} (case-insensitive), or null. */
        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }

    private RawHttp() {}

    /** Sends {@code request} (CRLF line ends, ends with an empty line) and reads until the peer closes or goes quiet. */
    static Answer exchange(int port, String request) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(1500);
            s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    all.write(buf, 0, n);
                    if (complete(all.toString(StandardCharsets.ISO_8859_1))) {
                        break;
                    }
                }
            } catch (SocketTimeoutException e) {
                // an upgraded socket stays open: what came so far is the answer
            }
            String text = all.toString(StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            String head = end < 0 ? text : text.substring(0, end);
            String body = end < 0 ? "" : text.substring(end + 4);
            int status = Integer.parseInt(head.split(" ", 3)[1]);
            return new Answer(status, head, body);
        }
    }

    private static boolean complete(String text) {
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return false;
        }
        String head = text.substring(0, end).toLowerCase(Locale.ROOT);
        int cl = head.indexOf("content-length:");
        if (cl >= 0) {
            int eol = head.indexOf("\r\n", cl);
            int len = Integer.parseInt(head.substring(cl + 15, eol < 0 ? head.length() : eol).trim());
            return text.length() - end - 4 >= len;
        }
        return head.startsWith("http/1.1 101");
    }

    /** A WebSocket upgrade of {@code /ws} with extra header lines (each ending in CRLF). */
    static String upgrade(int port, String query, String extraHeaders) {
        return "GET /ws" + query + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + extraHeaders + "\r\n";
    }

    static String get(String path, String host, String extraHeaders) {
        return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n" + extraHeaders + "\r\n";
    }
}
