package dev.limpet.client.connection;

import java.nio.ByteBuffer;

/**
 * One physical connection to a daemon (a WebSocket now, a relay path later). A transport is used
 * once: {@link #start} opens it, and it reports exactly one of {@link Listener#onOpen} followed later
 * by one terminal {@link Listener#onClose}/{@link Listener#onError}, or a terminal callback without
 * an open. It enforces its own connect timeout and reports failures with a typed
 * {@link DisconnectReason}. Callbacks may arrive on any thread; after {@link #close()} a transport
 * may still deliver callbacks, which its owner must ignore.
 */
public interface Transport {

    /** Begins connecting; never blocks and never throws for network reasons (those arrive as callbacks). */
    void start(Listener listener);

    /** Queues one text frame; frames go out in call order. Ignored once the transport is closed. */
    void sendText(String text);

    /** Queues one binary frame; frames go out in call order. Ignored once the transport is closed. */
    void sendBinary(ByteBuffer data);

    /** Closes the connection (idempotent). */
    void close();

    /** A human-readable connection path for logs, e.g. {@code direct}. */
    default String path() {
        return "direct";
    }

    /** Events of one transport. */
    interface Listener {
        void onOpen();

        void onText(String text);

        /** One whole binary message; the buffer is the listener's from now on (never reused by the transport). */
        void onBinary(ByteBuffer data);

        /** The connection could not be opened or broke; terminal. */
        void onError(TransportFailure failure);

        /** The connection was closed (by either side); terminal. */
        void onClose(TransportFailure failure);
    }

    /** Makes a fresh transport for each connection attempt. */
    @FunctionalInterface
    interface Factory {
        Transport create();
    }
}
