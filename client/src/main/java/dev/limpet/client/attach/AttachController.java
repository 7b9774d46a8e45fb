package dev.limpet.client.attach;

import dev.limpet.client.connection.CommandFailedException;
import dev.limpet.client.connection.ConnectionLostException;
import dev.limpet.client.connection.ConnectionState;
import dev.limpet.client.connection.ConnectionTransition;
import dev.limpet.client.connection.DaemonClient;
import dev.limpet.client.connection.DisconnectReason;
import dev.limpet.client.connection.HostRuntime;
import dev.limpet.client.connection.Scheduler;
import dev.limpet.client.connection.TransportFailure;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.stream.OutputChunk;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The logic of {@code limpet attach}, free of terminals and sockets: resolves the session, attaches,
 * writes output through an {@link OutputCursor} (no duplicate, no gap), forwards keystrokes and
 * resizes, and rides through lost connections by re-attaching with the last offset it wrote once the
 * {@link HostRuntime}'s active client is connected again.
 *
 * <p>It attaches {@code lossless} (a read-only watcher attaches {@code live}: it never paces the
 * session) and acknowledges ({@code pty_ack}) what it has written to the
 * terminal, paced by an {@link AckPacer}: at once when a batch has been written since the last
 * acknowledgement, else when the loop has run everything the socket delivered so far. When the
 * daemon grants only {@code live}, it sends no acknowledgements. Every attachment (after a
 * {@code pty_desync} or a reconnect) asks for lossless again and starts its acknowledgements afresh.
 *
 * <p>The person's terminal answers queries it finds in the output ({@link ReplyGuard}): answers to
 * replayed output are dropped, answers to live queries are marked as replies.
 *
 * <p>Keystrokes while not attached (connecting, reconnecting, re-attaching) are held, as a browser
 * tab holds them: in order, up to 4 KiB ({@link TypeAhead}), shown on the status line, and sent once,
 * as one input, right after the attach answers. Keys that do not fit ring the bell and are said on
 * the status line; held keys that can no longer go (the session ended, a detach) are said too.
 * Nothing typed is dropped without a word. Terminal replies are never held: their question belongs
 * to a screen that has moved on.
 *
 * <p>Runs on the {@link Scheduler}'s loop; {@link #input} and {@link #resized} may be called from any
 * thread. {@link #outcome()} completes once, when attach ends.
 */
public final class AttachController implements HostRuntime.Listener {
    private static final Duration RECOVERING_RETRY = Duration.ofMillis(500);
    private static final Duration NOTICE_TIME = Duration.ofSeconds(4);
    private static final Duration BELL_INTERVAL = Duration.ofMillis(250);
    private static final String LOSSLESS = "lossless";

    private enum Phase { CONNECTING, RESOLVING, ATTACHING, ATTACHED, RECONNECTING, DONE }

    private final HostRuntime runtime;
    private final Scheduler scheduler;
    private final AttachTerminal terminal;
    private final AttachSettings settings;
    private final OutputCursor cursor = new OutputCursor();
    private final AckPacer acks = new AckPacer();
    private final ReplyGuard replies = new ReplyGuard();
    private final TypeAhead typeAhead = new TypeAhead();
    private final CompletableFuture<AttachOutcome> outcome = new CompletableFuture<>();

    // Loop-confined.
    private Phase phase = Phase.CONNECTING;
    private String sessionId;
    private String daemonId;
    private boolean everAttached;
    private long connectionEpoch;
    private long attachSeq;
    private long exitAt = -1;
    private String exitText;
    private Instant lastBell = Instant.MIN;
    private String statusShown;
    /** The status line while not attached (reconnecting…), to which held keys are added; null while attached. */
    private String waitingLine;
    private boolean ackFlushQueued;
    /** Where the current attachment's replay ends (live output follows). */
    private long replayEnd = -1;

    public AttachController(HostRuntime runtime, Scheduler scheduler, AttachTerminal terminal, AttachSettings settings) {
        this.runtime = runtime;
        this.scheduler = scheduler;
        this.terminal = terminal;
        this.settings = settings;
        this.daemonId = settings.expectedDaemonId();
    }

    /** Subscribes to the runtime and starts it; the outcome completes when attach ends. */
    public CompletableFuture<AttachOutcome> start() {
        runtime.addListener(this);
        runtime.start();
        return outcome;
    }

    public CompletableFuture<AttachOutcome> outcome() {
        return outcome;
    }

    /** Keystrokes read from the person's terminal; the detach key ends the attachment. */
    public void input(byte[] data, int length) {
        byte[] copy = Arrays.copyOf(data, length);
        scheduler.execute(() -> onInput(copy));
    }

    /** The person's window changed size. */
    public void resized() {
        scheduler.execute(this::onResize);
    }

    // ---- runtime events (loop thread) ----------------------------------------------------------

    @Override
    public void onActiveTransition(ConnectionTransition t) {
        if (phase == Phase.DONE) {
            return;
        }
        switch (t.to()) {
            case CONNECTED -> onConnected();
            case DISCONNECTED -> onDisconnected(t);
            case CONNECTING -> {
                if (phase == Phase.RECONNECTING && t.changed()) {
                    waiting("limpet: reconnecting to " + settings.hostName() + "… (attempt " + t.attempt() + ")");
                }
            }
            case DISPOSED -> finish(AttachOutcome.failure(1, "limpet: the connection to " + settings.hostName() + " was closed"));
            case IDLE -> { }
        }
    }

    @Override
    public void onMessage(ServerMessage message) {
        if (phase == Phase.DONE) {
            return;
        }
        switch (message) {
            case ServerMessage.AttachResult r when r.sessionId().equals(sessionId) && isCurrentAttach(r.reqId()) -> onAttached(r);
            case ServerMessage.SessionExited e when e.sessionId().equals(sessionId) -> finish(exited(e.exitCode(), e.exitSignal()));
            case ServerMessage.PtyDesync d when d.sessionId().equals(sessionId) && phase == Phase.ATTACHED -> sendAttach();
            case ServerMessage.CommandError e when sessionId != null && (sessionId.equals(e.sessionId()) || isCurrentAttach(e.reqId())) -> onCommandError(e);
            case ServerMessage.Warning w -> notice("limpet: warning: " + w.message());
            default -> { }
        }
    }

    @Override
    public void onBinary(Frame frame) {
        if (phase != Phase.ATTACHED || !frame.streamId().equals(sessionId)) {
            return;
        }
        switch (frame.kind()) {
            case OUTPUT -> {
                if (frame.offset() < frame.payloadLength()) {
                    return; // malformed: a chunk cannot end before its own bytes
                }
                OutputChunk fresh = cursor.onOutput(OutputChunk.fromFrame(frame));
                if (fresh != null && !fresh.isEmpty()) {
                    byte[] bytes = fresh.bytes();
                    terminal.write(bytes);
                    if (!replies.replaying()) {
                        replies.liveWritten(bytes, scheduler.clock().instant());
                    }
                }
            }
            case SNAPSHOT -> {
                byte[] screen = cursor.onSnapshot(frame.offset(), frame.payload());
                if (screen.length > 0) {
                    terminal.write(screen);
                }
            }
            default -> { }
        }
        replayWrittenIfDone();
        acknowledge();
        finishIfExitReached();
    }

    /** The replay has been written once the cursor reaches the end offset the attach answered with. */
    private void replayWrittenIfDone() {
        if (replies.replaying() && cursor.have() >= replayEnd) {
            replies.replayWritten(scheduler.clock().instant());
        }
    }

    // ---- connection ------------------------------------------------------------------------------

    private void onConnected() {
        connectionEpoch++;
        ServerMessage.InitialState initial = runtime.active().initialState();
        String connectedTo = initial == null ? null : initial.daemonInstanceId();
        if (daemonId != null && connectedTo != null && !daemonId.equals(connectedTo)) {
            finish(AttachOutcome.failure(1, "limpet: " + settings.hostName() + " is now a different daemon (instance "
                    + connectedTo + ", was " + daemonId + "); session " + (sessionId == null ? settings.sessionRef() : sessionId)
                    + " is not there"));
            return;
        }
        daemonId = connectedTo;
        if (sessionId == null) {
            resolve();
        } else {
            sendAttach();
        }
    }

    private void onDisconnected(ConnectionTransition t) {
        acks.stop(); // the next attachment acknowledges afresh
        TransportFailure why = t.reason();
        if (connectionEpoch == 0) {
            finish(AttachOutcome.failure(1, firstConnectFailure(why)));
        } else if (!settings.reconnect()) {
            finish(AttachOutcome.failure(1, "limpet: lost the connection to " + settings.hostName() + " (" + why
                    + "); not reconnecting (--no-reconnect)"));
        } else if (t.retryIn() == null) {
            finish(AttachOutcome.failure(1, "limpet: lost the connection to " + settings.hostName() + " (" + why
                    + "); reconnecting cannot fix this"));
        } else {
            phase = Phase.RECONNECTING;
            waiting("limpet: reconnecting to " + settings.hostName() + "… (attempt " + (t.attempt() + 1) + ")");
        }
    }

    private String firstConnectFailure(TransportFailure why) {
        DisconnectReason reason = why == null ? DisconnectReason.NETWORK_ERROR : why.reason();
        return switch (reason) {
            case CONNECTION_REFUSED, CONNECT_TIMEOUT, HOST_UNREACHABLE, NETWORK_ERROR, CLOSED_BY_DAEMON ->
                    "limpet: no limpet daemon at " + settings.location() + "; start one with `limpet daemon`";
            case UNAUTHORIZED -> "limpet: the daemon at " + settings.location() + " refused our token (" + why + ")";
            case PAIRING_INVALID -> "limpet: pairing invalid: the daemon behind " + settings.location()
                    + " does not accept this pairing (revoked, or a wrong secret); pair again with `limpet pair`";
            case HOST_OFFLINE -> "limpet: host offline: the relay at " + settings.location() + " has no connection from that daemon right now";
            default -> "limpet: cannot connect to " + settings.location() + ": " + why;
        };
    }

    // ---- resolving and attaching -----------------------------------------------------------------

    private void resolve() {
        phase = Phase.RESOLVING;
        long epoch = connectionEpoch;
        runtime.active().request(ClientMessage.ListSessions::new).whenComplete((reply, error) -> {
            if (phase != Phase.RESOLVING || epoch != connectionEpoch) {
                return; // a newer connection took over; it resolves again
            }
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                if (!(cause instanceof ConnectionLostException)) {
                    finish(AttachOutcome.failure(1, "limpet: cannot list sessions on " + settings.hostName() + ": " + cause.getMessage()));
                }
                return;
            }
            onSessionList(((ServerMessage.SessionList) reply).sessions());
        });
    }

    private void onSessionList(List<SessionInfo> sessions) {
        String ref = settings.sessionRef();
        List<SessionInfo> byId = sessions.stream().filter(s -> s.id().equals(ref)).toList();
        List<SessionInfo> matches = byId.isEmpty() ? sessions.stream().filter(s -> ref.equals(s.label())).toList() : byId;
        if (matches.isEmpty()) {
            finish(AttachOutcome.failure(2, "limpet: no session '" + ref + "' on " + settings.hostName()));
        } else if (matches.size() > 1) {
            finish(AttachOutcome.failure(2, "limpet: the label '" + ref + "' names several sessions on " + settings.hostName()
                    + " (" + String.join(", ", matches.stream().map(SessionInfo::id).toList()) + "); attach by id"));
        } else {
            sessionId = matches.getFirst().id();
            sendAttach();
        }
    }

    private void sendAttach() {
        DaemonClient client = runtime.active();
        if (client == null || client.state() != ConnectionState.CONNECTED) {
            return; // the next CONNECTED transition attaches
        }
        phase = Phase.ATTACHING;
        attachSeq++;
        acks.stop(); // until attach_result says which flow was granted
        client.send(new ClientMessage.AttachSession("attach-" + attachSeq, sessionId, cursor.since(),
                terminal.columns(), terminal.rows(), settings.readOnly() ? Boolean.TRUE : null,
                settings.readOnly() ? "live" : LOSSLESS, null));
    }

    private boolean isCurrentAttach(String reqId) {
        return reqId != null && reqId.equals("attach-" + attachSeq);
    }

    private void onAttached(ServerMessage.AttachResult r) {
        boolean wasReconnecting = everAttached;
        OutputCursor.Resume resume = cursor.onAttachResult(r);
        if (LOSSLESS.equals(r.flow())) {
            acks.start(r.replayFrom()); // the daemon counts the window from replay_from
        } else {
            acks.stop(); // granted live: acknowledgements would be refused (invalid_ack)
        }
        phase = Phase.ATTACHED;
        everAttached = true;
        waitingLine = null;
        replayEnd = r.endOffset();
        replies.replayStarted();
        replayWrittenIfDone();
        switch (resume) {
            case LOST -> notice("limpet: reconnected to " + settings.hostName() + "; " + cursor.lostBytes()
                    + " bytes of output were lost (truncated: older than the daemon's buffer)");
            case RESTARTED -> notice("limpet: reconnected to " + settings.hostName() + "; the session's output restarted");
            default -> {
                if (wasReconnecting) {
                    clearStatus();
                }
            }
        }
        SessionInfo info = r.session();
        if (info != null && SessionInfo.EXITED.equals(info.state())) {
            exitAt = r.endOffset();
            exitText = exited(info.exitCode(), info.exitSignal()).message();
        }
        if (info != null && !settings.readOnly() && (info.cols() != terminal.columns() || info.rows() != terminal.rows())) {
            onResize();
        }
        sendHeldKeys();
        finishIfExitReached();
    }

    /** Keys typed while waiting go now, once, in the order typed, before anything typed later. */
    private void sendHeldKeys() {
        if (typeAhead.isEmpty()) {
            return;
        }
        if (exitAt >= 0) {
            notice("limpet: " + typeAhead.clear() + " key(s) typed while reconnecting were not sent: the session has exited");
            return;
        }
        DaemonClient client = runtime.active();
        if (client != null && client.sendBinary(Frame.encode(FrameKind.INPUT, sessionId, 0, typeAhead.take()))) {
            return;
        }
        // The link went again at once: what was held is lost with it; say so rather than pretend.
        notice("limpet: key(s) typed while reconnecting could not be sent");
    }

    private void onCommandError(ServerMessage.CommandError e) {
        if (ErrorCode.SESSION_NOT_FOUND.wire().equals(e.code())) {
            finish(everAttached
                    ? AttachOutcome.failure(1, "limpet: session " + sessionId + " no longer exists on " + settings.hostName())
                    : AttachOutcome.failure(2, "limpet: no session '" + settings.sessionRef() + "' on " + settings.hostName()));
        } else if (ErrorCode.DAEMON_RECOVERING.wire().equals(e.code())) {
            long epoch = connectionEpoch;
            scheduler.schedule(RECOVERING_RETRY, () -> {
                if (phase == Phase.ATTACHING && epoch == connectionEpoch) {
                    sendAttach();
                }
            });
        } else if (!ErrorCode.SESSION_NOT_RUNNING.wire().equals(e.code())) {
            notice("limpet: " + e.code() + ": " + e.message());
        }
    }

    // ---- acknowledgements (lossless) -------------------------------------------------------------

    /** Output up to the cursor has been written: acknowledge now, or once the loop has drained. */
    private void acknowledge() {
        acks.onWritten(cursor.have()).ifPresent(this::sendAck);
        if (acks.pending() && !ackFlushQueued) {
            ackFlushQueued = true;
            // Runs after every task already on the loop, i.e. after the frames the socket has
            // delivered so far: nothing more is pending then, so what was written is acknowledged.
            scheduler.execute(this::flushAcks);
        }
    }

    private void flushAcks() {
        ackFlushQueued = false;
        if (phase == Phase.ATTACHED) {
            acks.onIdle().ifPresent(this::sendAck);
        }
    }

    private void sendAck(long offset) {
        DaemonClient client = runtime.active();
        if (client != null) {
            client.send(new ClientMessage.PtyAck(null, sessionId, offset));
        }
    }

    // ---- keys and size ---------------------------------------------------------------------------

    private void onInput(byte[] data) {
        if (phase == Phase.DONE) {
            return;
        }
        int detachAt = settings.detachKey().indexIn(data, data.length);
        int forward = detachAt < 0 ? data.length : detachAt;
        if (forward > 0) {
            forward(Arrays.copyOf(data, forward));
        }
        if (detachAt >= 0) {
            DaemonClient client = runtime.active();
            if (phase == Phase.ATTACHED && client != null) {
                client.send(new ClientMessage.DetachSession(null, sessionId));
            }
            finish(AttachOutcome.success("[detached from " + (sessionId == null ? settings.sessionRef() : sessionId) + "]"));
        }
    }

    private void forward(byte[] keys) {
        ReplyGuard.Verdict verdict = replies.classify(keys, scheduler.clock().instant());
        if (verdict == ReplyGuard.Verdict.DROP) {
            return; // the person's terminal answering a query in replayed output: never typed into the session
        }
        if (settings.readOnly()) {
            bell();
            return;
        }
        DaemonClient client = runtime.active();
        // Offset 1 marks the terminal's automatic reply to a live query (docs/protocol.md, "Terminal replies").
        long kind = verdict == ReplyGuard.Verdict.REPLY ? 1 : 0;
        if (phase == Phase.ATTACHED && typeAhead.isEmpty() && client != null
                && client.sendBinary(Frame.encode(FrameKind.INPUT, sessionId, kind, keys))) {
            return;
        }
        if (verdict == ReplyGuard.Verdict.REPLY) {
            return; // a terminal's answer is never held: its question belongs to a screen that has moved on
        }
        if (typeAhead.hold(keys)) {
            status(withHeldKeys(waitingLine == null ? "limpet: waiting for session " + settings.sessionRef() : waitingLine));
            return;
        }
        bell();
        status(withHeldKeys(waitingLine == null ? "limpet: waiting for session " + settings.sessionRef() : waitingLine)
                + "; more than " + TypeAhead.LIMIT + " bytes typed: the rest was not sent");
    }

    private void bell() {
        Instant now = scheduler.clock().instant();
        if (Duration.between(lastBell, now).compareTo(BELL_INTERVAL) >= 0) {
            lastBell = now;
            terminal.bell();
        }
    }

    /** The status line while not attached. */
    private void waiting(String line) {
        waitingLine = line;
        status(withHeldKeys(line));
    }

    private String withHeldKeys(String line) {
        return typeAhead.isEmpty() ? line : line + " — " + typeAhead.keys() + " key(s) held, sent once reattached";
    }

    private void onResize() {
        DaemonClient client = runtime.active();
        if (phase == Phase.ATTACHED && !settings.readOnly() && client != null) {
            client.send(new ClientMessage.PtyResize(null, sessionId, terminal.columns(), terminal.rows()));
        }
    }

    // ---- ending and status -----------------------------------------------------------------------

    private void finishIfExitReached() {
        if (exitAt >= 0 && cursor.have() >= exitAt) {
            finish(AttachOutcome.success(exitText));
        }
    }

    private AttachOutcome exited(Integer code, String signal) {
        String how = code != null ? code.toString() : signal != null ? "signal " + signal : "?";
        return AttachOutcome.success("[session " + sessionId + " exited: " + how + "]");
    }

    private void finish(AttachOutcome result) {
        if (phase == Phase.DONE) {
            return;
        }
        phase = Phase.DONE;
        clearStatus();
        runtime.stop();
        if (!typeAhead.isEmpty()) {
            int keys = typeAhead.clear();
            result = new AttachOutcome(result.exitCode(), result.message() + " (" + keys + " key(s) typed while waiting were not sent)",
                    result.error());
        }
        outcome.complete(result);
    }

    private void status(String text) {
        if (text.equals(statusShown)) {
            return;
        }
        statusShown = text;
        terminal.showStatus(text);
    }

    /** A status message that clears itself after a while unless replaced. */
    private void notice(String text) {
        status(text);
        scheduler.schedule(NOTICE_TIME, () -> {
            if (text.equals(statusShown) && phase != Phase.DONE) {
                clearStatus();
            }
        });
    }

    private void clearStatus() {
        if (statusShown != null) {
            statusShown = null;
            terminal.clearStatus();
        }
    }
}
