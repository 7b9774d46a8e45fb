package dev.limpet.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A socket that records what it receives: text as String, binary as byte[], the close as Integer status. */
final class Recorder implements WebSocket.Listener {
    final BlockingQueue<Object> received = new LinkedBlockingQueue<>();

    @Override
    public void onOpen(WebSocket ws) {
        ws.request(Long.MAX_VALUE);
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
        received.add(data.toString());
        return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
        byte[] b = new byte[data.remaining()];
        data.get(b);
        received.add(b);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
        received.add(status);
        return null;
    }

    Object next() throws InterruptedException {
        Object o = received.poll(10, TimeUnit.SECONDS);
        assertThat(o).as("a message within 10 s").isNotNull();
        return o;
    }
}
