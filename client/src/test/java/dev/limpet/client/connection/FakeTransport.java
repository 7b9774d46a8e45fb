package dev.limpet.client.connection;

import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** A scripted {@link Transport}: the test plays the daemon's side and inspects what the client sent. */
public final class FakeTransport implements Transport {
    public final List<String> sentTexts = new ArrayList<>();
    public final List<byte[]> sentBinaries = new ArrayList<>();
    private Listener listener;
    private boolean started;
    private boolean closed;

    @Override
    public void start(Listener listener) {
        this.listener = listener;
        this.started = true;
    }

    @Override
    public void sendText(String text) {
        if (!closed) {
            sentTexts.add(text);
        }
    }

    @Override
    public void sendBinary(ByteBuffer data) {
        if (!closed) {
            byte[] copy = new byte[data.remaining()];
            data.get(copy);
            sentBinaries.add(copy);
        }
    }

    @Override
    public void close() {
        closed = true;
    }

    public boolean started() {
        return started;
    }

    public boolean closed() {
        return closed;
    }

    /** The client messages sent so far, decoded. */
    public List<ClientMessage> sentMessages() {
        return sentTexts.stream().map(ProtocolCodec::decodeClient).toList();
    }

    public ClientMessage lastSent() {
        List<ClientMessage> all = sentMessages();
        return all.isEmpty() ? null : all.getLast();
    }

    /** The binary frames sent so far, decoded. */
    public List<Frame> sentFrames() {
        return sentBinaries.stream().map(Frame::decode).toList();
    }

    /** A decoded frame, for comparing with what listeners received. */
    public static Frame frame(FrameKind kind, String streamId, long offset, byte[] payload) {
        return Frame.decode(Frame.encode(kind, streamId, offset, payload));
    }

    public void open() {
        listener.onOpen();
    }

    public void receive(ServerMessage message) {
        listener.onText(ProtocolCodec.encode(message));
    }

    public void receiveText(String text) {
        listener.onText(text);
    }

    /** Delivers a binary frame of {@code kind} for {@code streamId} (the session id). */
    public void receive(FrameKind kind, String streamId, long offset, byte[] payload) {
        receiveBinary(Frame.encode(kind, streamId, offset, payload));
    }

    /** Delivers raw bytes as one binary message. */
    public void receiveBinary(byte[] message) {
        listener.onBinary(ByteBuffer.wrap(message));
    }

    public void fail(DisconnectReason reason) {
        listener.onError(new TransportFailure(reason, "scripted"));
    }

    public void closeByPeer(DisconnectReason reason) {
        listener.onClose(new TransportFailure(reason, "scripted"));
    }

    /** Opens and completes the handshake with an {@code initial_state} naming {@code daemonInstanceId}. */
    public void handshake(String daemonInstanceId) {
        open();
        receive(Daemons.initialState(daemonInstanceId));
    }

    /** Every transport a factory made, in order. */
    public static final class Factory implements Transport.Factory {
        public final List<FakeTransport> created = new ArrayList<>();

        @Override
        public Transport create() {
            FakeTransport t = new FakeTransport();
            created.add(t);
            return t;
        }

        public FakeTransport last() {
            return created.getLast();
        }
    }
}
