package dev.limpet.daemon.websocket;

import static dev.limpet.daemon.websocket.ClientFrames.frame;
import static dev.limpet.daemon.websocket.ClientFrames.whole;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.Inflater;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A real Jetty server whose sockets become {@link WsConnection}s echoing what they get, and a client on a plain socket. */
class WsConnectionTest {
    private Server server;
    private int port;
    private static final int FLOOD_FRAMES = 60;
    private final CountDownLatch closed = new CountDownLatch(1);

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                WsHandshake.Accept a = (WsHandshake.Accept) WsHandshake.judge(request.getMethod(),
                        request.getHeaders().getValuesList(HttpHeader.CONNECTION), request.getHeaders().get(HttpHeader.SEC_WEBSOCKET_VERSION),
                        request.getHeaders().get(HttpHeader.SEC_WEBSOCKET_KEY), request.getHeaders().getValuesList(HttpHeader.SEC_WEBSOCKET_EXTENSIONS));
                response.setStatus(101);
                response.getHeaders().put(HttpHeader.UPGRADE, "websocket");
                response.getHeaders().put(HttpHeader.CONNECTION, "Upgrade");
                response.getHeaders().put(HttpHeader.SEC_WEBSOCKET_ACCEPT, a.acceptKey());
                a.deflate().ifPresent(t -> response.getHeaders().put(HttpHeader.SEC_WEBSOCKET_EXTENSIONS, t.responseHeader()));
                request.setAttribute(HttpStream.UPGRADE_CONNECTION_ATTRIBUTE, new WsConnection(
                        request.getConnectionMetaData().getConnection().getEndPoint(), request.getComponents().getExecutor(),
                        request.getComponents().getScheduler(), Duration.ofMinutes(1), 1 << 20,
                        a.deflate().map(PerMessageDeflate::new).orElse(null), WsConnectionTest.this::echo));
                callback.succeeded();
                return true;
            }
        });
        server.start();
        port = connector.getLocalPort();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private WsConnection.Listener echo(WsConnection ws) {
        return new WsConnection.Listener() {
            @Override
            public void onText(String text) {
                if (text.startsWith("flood ")) {
                    for (int i = 0; i < Integer.parseInt(text.substring(6)); i++) {
                        byte[] chunk = new byte[64 * 1024];
                        Arrays.fill(chunk, (byte) i);
                        ws.sendBinary(ByteBuffer.wrap(chunk));
                    }
                    return;
                }
                ws.sendText(text);
            }

            @Override
            public void onBinary(ByteBuffer data) {
                ws.sendBinary(ByteBuffer.allocate(data.remaining()).put(data).flip());
            }

            @Override
            public void onClosed() {
                closed.countDown();
            }
        };
    }

    record ServerFrame(boolean compressed, int opcode, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    /** A client on a plain socket: the handshake, then frames written raw and read one by one. */
    final class Client implements AutoCloseable {
        final Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        final DataInputStream in;
        final String responseHead;

        Client(String extraHeaders, byte[] rightBehind) throws IOException {
            socket.setSoTimeout(10_000);
            String head = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + extraHeaders + "\r\n";
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(rightBehind);
            socket.getOutputStream().write(out.toByteArray());
            in = new DataInputStream(socket.getInputStream());
            StringBuilder h = new StringBuilder();
            while (!h.toString().endsWith("\r\n\r\n")) {
                h.append((char) in.readUnsignedByte());
            }
            responseHead = h.toString();
        }

        Client() throws IOException {
            this("", new byte[0]);
        }

        void send(byte[] frame) throws IOException {
            socket.getOutputStream().write(frame);
        }

        ServerFrame read() throws IOException {
            int b0 = in.readUnsignedByte();
            int b1 = in.readUnsignedByte();
            assertThat(b1 & 0x80).as("a server's frame is never masked").isZero();
            long len = b1 & 0x7F;
            if (len == 126) {
                len = in.readUnsignedShort();
            } else if (len == 127) {
                len = in.readLong();
            }
            byte[] payload = new byte[(int) len];
            in.readFully(payload);
            return new ServerFrame((b0 & 0x40) != 0, b0 & 0x0F, payload);
        }

        /** The next frame that is not a ping. */
        ServerFrame readData() throws IOException {
            ServerFrame f = read();
            return f.opcode() == WsMessageReader.PING ? readData() : f;
        }

        boolean endsAfterThis() throws IOException {
            InputStream raw = socket.getInputStream();
            return raw.read() == -1;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void messagesAreEchoedInOrderAndAPingIsAnsweredWithItsPayload() throws Exception {
        try (Client c = new Client()) {
            assertThat(c.responseHead).startsWith("HTTP/1.1 101");
            c.send(whole(WsMessageReader.TEXT, utf8("one")));
            c.send(whole(WsMessageReader.BINARY, new byte[] {1, 2}));
            c.send(whole(WsMessageReader.PING, utf8("are you there")));
            ServerFrame text = c.readData();
            assertThat(text.opcode()).isEqualTo(WsMessageReader.TEXT);
            assertThat(text.text()).isEqualTo("one");
            assertThat(c.readData().payload()).containsExactly(1, 2);
            ServerFrame pong = c.readData();
            assertThat(pong.opcode()).isEqualTo(WsMessageReader.PONG);
            assertThat(pong.text()).isEqualTo("are you there");
        }
    }

    @Test
    void framesQueuedFasterThanTheClientReadsLeaveWholeAndInOrder() throws Exception {
        try (Client c = new Client()) {
            c.send(whole(WsMessageReader.TEXT, utf8("flood " + FLOOD_FRAMES)));
            Thread.sleep(300); // the socket's buffers fill: writes complete in parts, later
            for (int i = 0; i < FLOOD_FRAMES; i++) {
                ServerFrame f = c.readData();
                assertThat(f.payload()).hasSize(64 * 1024);
                assertThat(f.payload()[0]).isEqualTo((byte) i);
                assertThat(f.payload()[f.payload().length - 1]).isEqualTo((byte) i);
            }
        }
    }

    @Test
    void aClientThatPingsWithoutReadingGetsOnlyItsLatestPingAnswered() throws Exception {
        try (Client c = new Client()) {
            int frames = 200; // more than the socket's buffers hold: what follows waits in the queue
            c.send(whole(WsMessageReader.TEXT, utf8("flood " + frames)));
            for (int i = 0; i < 500; i++) {
                c.send(whole(WsMessageReader.PING, utf8("p" + i)));
            }
            Thread.sleep(300);
            for (int i = 0; i < frames; i++) {
                assertThat(c.readData().opcode()).isEqualTo(WsMessageReader.BINARY);
            }
            ServerFrame pong = c.readData();
            assertThat(pong.opcode()).isEqualTo(WsMessageReader.PONG);
            assertThat(pong.text()).isEqualTo("p499");
            c.send(whole(WsMessageReader.TEXT, utf8("after")));
            assertThat(c.readData().text()).as("no other pong was queued").isEqualTo("after");
        }
    }

    @Test
    void framesSentRightBehindTheHandshakeAreRead() throws Exception {
        try (Client c = new Client("", whole(WsMessageReader.TEXT, utf8("early")))) {
            assertThat(c.readData().text()).isEqualTo("early");
        }
    }

    @Test
    void anUnmaskedFrameIsAnsweredWithAProtocolErrorAndTheSocketEnds() throws Exception {
        try (Client c = new Client()) {
            c.send(frame(true, 0, WsMessageReader.TEXT, utf8("x"), false));
            ServerFrame close = c.readData();
            assertThat(close.opcode()).isEqualTo(WsMessageReader.CLOSE);
            assertThat(ByteBuffer.wrap(close.payload()).getShort()).isEqualTo((short) WsClose.PROTOCOL_ERROR);
            c.send(whole(WsMessageReader.CLOSE, new byte[] {0x03, (byte) 0xEA}));
            assertThat(c.endsAfterThis()).isTrue();
            assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aClientsCloseIsAnsweredWithItsCodeThenTheSocketIsClosed() throws Exception {
        try (Client c = new Client()) {
            c.send(whole(WsMessageReader.CLOSE, new byte[] {0x0F, (byte) 0xA0, 'b', 'y', 'e'}));
            ServerFrame close = c.readData();
            assertThat(close.opcode()).isEqualTo(WsMessageReader.CLOSE);
            assertThat(ByteBuffer.wrap(close.payload()).getShort()).isEqualTo((short) 4000);
            assertThat(c.endsAfterThis()).isTrue();
            assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void withCompressionAgreedLargeMessagesGoCompressedAndSmallOnesPlain() throws Exception {
        try (Client c = new Client("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n", new byte[0])) {
            assertThat(c.responseHead).containsIgnoringCase("Sec-WebSocket-Extensions: permessage-deflate");
            String big = "a line of output, long enough to be worth compressing. ".repeat(10);
            c.send(whole(WsMessageReader.TEXT, utf8(big)));
            c.send(frame(true, 4, WsMessageReader.TEXT, new ClientFrames.Compressor().compress(utf8("typed"))));
            ServerFrame first = c.readData();
            assertThat(first.compressed()).isTrue();
            Inflater browser = new Inflater(true);
            byte[] withTail = ByteBuffer.allocate(first.payload().length + 4).put(first.payload()).put(new byte[] {0, 0, -1, -1}).array();
            browser.setInput(withTail);
            byte[] out = new byte[4096];
            assertThat(new String(out, 0, browser.inflate(out), StandardCharsets.UTF_8)).isEqualTo(big);
            ServerFrame second = c.readData();
            assertThat(second.compressed()).isFalse();
            assertThat(second.text()).isEqualTo("typed");
        }
    }

    @Test
    void anOfferItCannotHonourLeavesTheSocketUncompressed() throws Exception {
        try (Client c = new Client("Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=9\r\n", new byte[0])) {
            assertThat(c.responseHead).doesNotContainIgnoringCase("Sec-WebSocket-Extensions");
            c.send(whole(WsMessageReader.TEXT, utf8("x".repeat(500))));
            ServerFrame echoed = c.readData();
            assertThat(echoed.compressed()).isFalse();
            assertThat(echoed.text()).isEqualTo("x".repeat(500));
        }
    }
}
