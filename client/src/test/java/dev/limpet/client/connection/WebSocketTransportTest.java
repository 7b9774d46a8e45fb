package dev.limpet.client.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The JDK WebSocket under {@link WebSocketTransport}, against a real socket: a peer that drops the
 * connection (no close frame) right after a message must be reported, however long the listener
 * takes over that message.
 */
class WebSocketTransportTest {
    private static final Pattern KEY = Pattern.compile("(?im)^Sec-WebSocket-Key:\\s*(\\S+)\\s*$");

    @Test
    void aConnectionDroppedRightAfterAMessageIsReportedWhileTheListenerStillHandlesThatMessage() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             EventLoopScheduler loop = new EventLoopScheduler("ws-test")) {
            Thread peer = Thread.ofPlatform().daemon(true).start(() -> serveOneMessageThenDrop(server));
            CountDownLatch ended = new CountDownLatch(1);
            CountDownLatch received = new CountDownLatch(1);
            ConnectionTarget target = new ConnectionTarget("test", URI.create("http://127.0.0.1:" + server.getLocalPort() + "/"), "t");
            Transport transport = WebSocketTransport.factory(target, Duration.ofSeconds(5), Duration.ZERO, loop).create();
            transport.start(new Transport.Listener() {
                @Override
                public void onOpen() {
                }

                @Override
                public void onText(String text) {
                }

                @Override
                public void onBinary(ByteBuffer data) {
                    received.countDown();
                    // A busy moment: the peer's EOF arrives while this message is being handed on.
                    sleep(300);
                }

                @Override
                public void onError(TransportFailure failure) {
                    ended.countDown();
                }

                @Override
                public void onClose(TransportFailure failure) {
                    ended.countDown();
                }
            });
            assertThat(received.await(10, TimeUnit.SECONDS)).as("the message arrives").isTrue();
            assertThat(ended.await(10, TimeUnit.SECONDS)).as("the dropped connection is reported").isTrue();
            peer.join(5_000);
            transport.close();
        }
    }

    /** Completes one WebSocket handshake, sends one binary message, and drops the TCP connection. */
    private static void serveOneMessageThenDrop(ServerSocket server) {
        try (Socket s = server.accept()) {
            InputStream in = s.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    return;
                }
                head.write(b);
            }
            Matcher key = KEY.matcher(head.toString(StandardCharsets.ISO_8859_1));
            if (!key.find()) {
                return;
            }
            String accept = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                    .digest((key.group(1) + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.ISO_8859_1)));
            OutputStream out = s.getOutputStream();
            out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
                    + accept + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            Thread.sleep(200); // the socket is the WebSocket's by now, as a daemon's first message finds it
            out.write(new byte[] {(byte) 0x82, 3, 'a', 'b', 'c'});
            out.flush();
            // Closing at once: the EOF follows the message in the same instant, no close frame.
        } catch (Exception e) {
            // the test fails on its own assertions
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
