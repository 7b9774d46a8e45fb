package dev.limpet.client.attach;

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
import java.util.ArrayDeque;
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
 * <p>What the person sees is an {@link AttachScreen}: the session's screen kept in a model of its own
 * and painted onto their terminal, at the session's size, which follows the viewer a person uses
 * (docs/cli.md, "Size"): the first attach takes the size (the person ran the command there), typing
 * takes it, and while another viewer holds a different size the status line says so.
 *
 * <p>The person's terminal answers the queries passed to it from live output ({@link ReplyGuard}):
 * answers to replayed output are dropped, answers to live queries are marked as replies.
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
    private static final Duration RESIZE_SETTLE = Duration.ofMillis(100);
    private static final String LOSSLESS = "lossless";

    private enum Phase { CONNECTING, RESOLVING, ATTACHING, ATTACHED, RECONNECTING, DONE }

    private final HostRuntime runtime;
    private final Scheduler scheduler;
    private final AttachTerminal terminal;
    private final AttachSettings settings;
    private final OutputCursor cursor = new OutputCursor();
    private final AttachScreen screen;
    /** Session resizes announced for offsets the output has not reached yet, in order. */
    private final ArrayDeque<ServerMessage.SessionResized> resizes = new ArrayDeque<>();
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
    /** The status line saying keys wait in the daemon, while it is meant to show. */
    private String queuedKeysShown;
    /** The status line while not attached (reconnecting…), to which held keys are added; null while attached. */
    private String waitingLine;
    private boolean ackFlushQueued;
    private long resizeGeneration;
    /** The size the session has as of the last attach (until a session_resized says otherwise). */
    private int sessionCols;
    private int sessionRows;
    /** The offset of the snapshot the screen was last drawn from (-1: none); output after it was fed to it. */
    private long snapshotAt = -1;
    /** Where the current attachment's replay ends (live output follows). */
    private long replayEnd = -1;

    public AttachController(HostRuntime runtime, Scheduler scheduler, AttachTerminal terminal, AttachSettings settings) {
        this.runtime = runtime;
        this.scheduler = scheduler;
        this.terminal = terminal;
        this.settings = settings;
        this.daemonId = settings.expectedDaemonId();
        this.screen = terminal.interactive() ? AttachScreen.painted(terminal.columns(), terminal.rows(), terminal::write)
                : AttachScreen.raw(terminal::write, terminal::note);
    }

    /** Takes the person's terminal over, subscribes to the runtime and starts it; the outcome completes when attach ends. */
    public CompletableFuture<AttachOutcome> start() {
        screen.enter();
        runtime.addListener(this);
        runtime.start();
        return outcome;
    }

    public CompletableFuture<AttachOutcome> outcome() {
        return outcome;
    }

    /**
     * Gives the person's terminal back as it was (screen, cursor, modes, title); once, from any
     * thread (a shutdown hook on a signal, too). Nothing is drawn on it afterwards.
     */
    public void giveTerminalBack() {
        screen.leave();
    }

    /** Keystrokes read from the person's terminal; the detach key ends the attachment. */
    public void input(byte[] data, int length) {
        byte[] copy = Arrays.copyOf(data, length);
        scheduler.execute(() -> onInput(copy));
    }

    /**
     * The person's window changed size. Taken once it holds still for a moment: a window dragged
     * sends many, and a terminal (tmux resizing a pane) may signal the new size before it has
     * resized its own screen, which a paint at the new size would garble.
     */
    public void resized() {
        scheduler.execute(() -> {
            long generation = ++resizeGeneration;
            scheduler.schedule(RESIZE_SETTLE, () -> {
                if (generation == resizeGeneration) {
                    onResize();
                }
            });
        });
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
            case ServerMessage.SessionResized z when z.sessionId().equals(sessionId) && phase == Phase.ATTACHED -> onSessionResized(z);
            case ServerMessage.CommandError e when sessionId != null && (sessionId.equals(e.sessionId()) || isCurrentAttach(e.reqId())) -> onCommandError(e);
            case ServerMessage.InputWaiting w when w.sessionId().equals(sessionId) -> keysWaiting(w.keys());
            case ServerMessage.InputUndelivered u when u.sessionId().equals(sessionId) -> {
                keysWaiting(0);
                notice("limpet: " + keys(u.keys()) + " typed never reached the program (" + u.reason().replace('_', ' ') + ")");
            }
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
                    show(fresh.bytes(), fresh.endOffset());
                }
            }
            case SNAPSHOT -> {
                snapshotAt = frame.offset();
                resizes.removeIf(z -> z.offset() <= frame.offset()); // the snapshot is at the size of its moment
                screen.snapshot(sessionCols, sessionRows, cursor.onSnapshot(frame.offset(), frame.payload()));
                updateSizeStatus();
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

    /**
     * Output {@code bytes} ending at {@code end}: fed to the screen, cut where the session's size
     * changed so each part is taken in at the size it was written for. Queries in live output go
     * to the person's terminal, which answers them.
     */
    private void show(byte[] bytes, long end) {
        long start = end - bytes.length;
        int from = 0;
        while (!resizes.isEmpty() && resizes.peekFirst().offset() <= end) {
            ServerMessage.SessionResized z = resizes.pollFirst();
            int cut = (int) Math.max(0, z.offset() - start);
            showPart(bytes, from, cut);
            from = Math.max(from, cut);
            resizeSession(z.cols(), z.rows());
        }
        showPart(bytes, from, bytes.length);
    }

    private void showPart(byte[] bytes, int from, int to) {
        if (to <= from) {
            return;
        }
        byte[] part = from == 0 && to == bytes.length ? bytes : Arrays.copyOfRange(bytes, from, to);
        boolean live = !replies.replaying();
        screen.output(part, live ? TerminalReplies.queries(part, 0, part.length) : new byte[0]);
        if (live) {
            replies.liveWritten(part, scheduler.clock().instant());
        }
    }

    /**
     * The session's size changed from {@code z.offset()} on: now if the output is there, else when
     * it gets there. The daemon learns the offset only once the session has resized, and its output
     * may reach us first: when what we took in already runs past the offset (and the snapshot we
     * drew from is older), the screen takes the resize in again at its place.
     */
    private void onSessionResized(ServerMessage.SessionResized z) {
        if (z.offset() > cursor.have()) {
            resizes.addLast(z);
        } else if (z.offset() > snapshotAt && z.offset() < cursor.have()) {
            sessionCols = z.cols();
            sessionRows = z.rows();
            screen.sessionResizedEarlier(z.cols(), z.rows(), cursor.have() - z.offset());
            updateSizeStatus();
        } else {
            resizeSession(z.cols(), z.rows());
        }
    }

    private void resizeSession(int cols, int rows) {
        sessionCols = cols;
        sessionRows = rows;
        screen.sessionResized(cols, rows);
        updateSizeStatus();
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
        // A terminal asks for nothing: it gets the current screen. A pipe or a file records the
        // session: it asks for the stream from its start, which the daemon sends while its ring
        // holds it (else the current screen, as a snapshot).
        Long since = cursor.since() == null && !terminal.interactive() ? Long.valueOf(0) : cursor.since();
        client.send(new ClientMessage.AttachSession("attach-" + attachSeq, sessionId, since,
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
        boolean firstAttach = !everAttached;
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
        if (info != null && info.cols() > 0 && info.rows() > 0) {
            sessionCols = info.cols();
            sessionRows = info.rows();
        }
        if (info != null && SessionInfo.EXITED.equals(info.state())) {
            exitAt = r.endOffset();
            exitText = exited(info.exitCode(), info.exitSignal()).message();
        }
        DaemonClient client = runtime.active();
        if (firstAttach && !settings.readOnly() && client != null && (info == null || SessionInfo.RUNNING.equals(info.state()))) {
            // The person ran `limpet attach` in this terminal: it is the viewer they use (a re-attach
            // after a lost link is not, until they type).
            client.send(new ClientMessage.TakeSize(null, sessionId));
        }
        sendHeldKeys();
        showStatus();
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
        // First on the line: the status row is cut at the terminal's width.
        status("limpet: more than " + TypeAhead.LIMIT + " bytes typed: the rest was not sent; " + typeAhead.keys()
                + " key(s) held, sent once reattached");
    }

    private void bell() {
        Instant now = scheduler.clock().instant();
        if (Duration.between(lastBell, now).compareTo(BELL_INTERVAL) >= 0) {
            lastBell = now;
            screen.bell();
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

    /**
     * The person's window changed size: shown at once; the session follows while this viewer holds its size.
     * A size that settles after the end is not ours to paint: the terminal is the person's again.
     */
    private void onResize() {
        if (phase == Phase.DONE) {
            return;
        }
        screen.displayResized(terminal.columns(), terminal.rows());
        DaemonClient client = runtime.active();
        if (phase == Phase.ATTACHED && !settings.readOnly() && client != null) {
            client.send(new ClientMessage.PtyResize(null, sessionId, terminal.columns(), terminal.rows()));
        }
        showStatus();
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
        screen.leave();
        outcome.complete(result);
    }

    /**
     * Keys typed into the session wait in the daemon (its worker is not taking them): said on the
     * status line while they wait, cleared once they arrived.
     */
    private void keysWaiting(int keys) {
        String shown = queuedKeysShown;
        if (keys > 0) {
            queuedKeysShown = "limpet: " + keys(keys) + " waiting: the session's program is not taking input";
            status(queuedKeysShown);
        } else if (shown != null) {
            queuedKeysShown = null;
            if (shown.equals(statusShown)) {
                clearStatus();
            }
        }
    }

    private static String keys(int n) {
        return n == 1 ? "1 key" : n + " keys";
    }

    private void status(String text) {
        if (text.equals(statusShown)) {
            return;
        }
        statusShown = text;
        showStatus();
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
            showStatus();
        }
    }

    /** The status line: a message when there is one, else whether the session has another viewer's size. */
    private void showStatus() {
        screen.status(statusShown != null ? statusShown : sizeMarker());
    }

    private void updateSizeStatus() {
        if (statusShown == null) {
            showStatus();
        }
    }

    /** Said while the session's size is not this terminal's: another viewer (the one a person used last) set it. */
    private String sizeMarker() {
        if (phase != Phase.ATTACHED || !terminal.interactive() || sessionCols <= 0
                || sessionCols == terminal.columns() && sessionRows == terminal.rows()) {
            return null;
        }
        String size = sessionCols + "×" + sessionRows;
        return settings.readOnly() ? "limpet: sized for another viewer (" + size + ")"
                : "limpet: sized for another viewer (" + size + ") — type here to take it";
    }
}
