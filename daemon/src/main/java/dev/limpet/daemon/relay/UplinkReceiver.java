package dev.limpet.daemon.relay;

import java.io.ByteArrayOutputStream;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletionStage;

/**
 * The JDK callbacks of one attempt to open the uplink: whole messages out of their parts, handed
 * on. They run on the HTTP client's I/O thread (see {@code WebSocketClients}): they only join, hand
 * on and ask for more, never block. An attempt that is no longer the uplink's current one (it was
 * given up, or another began) is heard no more.
 */
final class UplinkReceiver implements WebSocket.Listener {
    /** Where an attempt's news goes. */
    interface Uplink {
        /** Whether {@code attempt} is still the uplink's current one. */
        boolean current(long attempt);

        void opened(WebSocket ws);

        void control(String text);

        void envelope(ByteBuffer envelope);

        void pong();

        /** The attempt failed or its socket broke; {@code refused}: the relay refused the credential. */
        void lost(long attempt, String reason, boolean refused);
    }

    private final long attempt;
    private final Uplink uplink;
    private final StringBuilder text = new StringBuilder();
    private ByteArrayOutputStream binary = new ByteArrayOutputStream();

    UplinkReceiver(long attempt, Uplink uplink) {
        this.attempt = attempt;
        this.uplink = uplink;
    }

    @Override
    public void onOpen(WebSocket ws) {
        if (!uplink.current(attempt)) {
            ws.abort();
            return;
        }
        uplink.opened(ws);
        ws.request(1);
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
        text.append(data);
        if (last) {
            String m = text.toString();
            text.setLength(0);
            if (uplink.current(attempt)) {
                uplink.control(m);
            }
        }
        ws.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
        byte[] chunk = new byte[data.remaining()];
        data.get(chunk);
        binary.writeBytes(chunk);
        if (last) {
            ByteBuffer m = ByteBuffer.wrap(binary.toByteArray());
            binary = new ByteArrayOutputStream();
            if (uplink.current(attempt)) {
                uplink.envelope(m);
            }
        }
        ws.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
        uplink.pong();
        ws.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
        uplink.lost(attempt, "the relay closed the uplink (" + statusCode + (reason == null || reason.isEmpty() ? "" : " " + reason) + ")", false);
        return null;
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
        uplink.lost(attempt, UplinkFailures.describe(error), UplinkFailures.refused(error));
    }
}
