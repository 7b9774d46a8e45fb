package dev.limpet.relay;

import java.io.ByteArrayOutputStream;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletionStage;

/** As {@link Recorder}, joining a binary message's fragments (the JDK hands a large message over in parts). */
final class WholeRecorder extends ByteArrayOutputStream implements WebSocket.Listener {
    final Recorder r = new Recorder();

    @Override
    public void onOpen(WebSocket ws) {
        ws.request(Long.MAX_VALUE);
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
        return r.onText(ws, data, last);
    }

    @Override
    public synchronized CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
        byte[] b = new byte[data.remaining()];
        data.get(b);
        writeBytes(b);
        if (last) {
            r.received.add(toByteArray());
            reset();
        }
        return null;
    }

    Object next() throws InterruptedException {
        return r.next();
    }
}
