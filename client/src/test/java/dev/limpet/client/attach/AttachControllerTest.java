package dev.limpet.client.attach;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.client.connection.ClientOptions;
import dev.limpet.client.connection.DaemonClient;
import dev.limpet.client.connection.Daemons;
import dev.limpet.client.connection.DisconnectReason;
import dev.limpet.client.connection.FakeTransport;
import dev.limpet.client.connection.HostRuntime;
import dev.limpet.client.connection.ManualScheduler;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.protocol.retry.Backoff;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class AttachControllerTest {
    static final String KEY = "attach-test-client-key";
    static final Backoff BACKOFF = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), new Random(1));

    final ManualScheduler scheduler = new ManualScheduler();
    final FakeTransport.Factory transports = new FakeTransport.Factory();
    final FakeTerminal terminal = new FakeTerminal();
    final SessionInfo running = Daemons.session("s1", "build", SessionInfo.RUNNING, 0);

    AttachController controller;
    CompletableFuture<AttachOutcome> outcome;

    AttachController controller(boolean readOnly, boolean reconnect, String ref) {
        ClientOptions options = ClientOptions.DEFAULT.withBackoff(BACKOFF).withReconnect(reconnect);
        HostRuntime runtime = new HostRuntime("box", KEY, scheduler,
                (role, generation) -> new DaemonClient("box", KEY, role, generation, transports, scheduler, options));
        AttachSettings settings = new AttachSettings(ref, "box", "http://127.0.0.1:7420/", null, readOnly, DetachKey.DEFAULT, reconnect);
        controller = new AttachController(runtime, scheduler, terminal, settings);
        outcome = controller.start();
        return controller;
    }

    FakeTransport daemon() {
        return transports.last();
    }

    /** Connects, answers list_sessions with {@code sessions}, and returns the attach request. */
    ClientMessage.AttachSession connectAndResolve(String daemonId, SessionInfo... sessions) {
        daemon().handshake(daemonId);
        ClientMessage list = daemon().lastSent();
        assertThat(list).isInstanceOf(ClientMessage.ListSessions.class);
        daemon().receive(new ServerMessage.SessionList(list.reqId(), List.of(sessions)));
        return lastAttach();
    }

    ClientMessage.AttachSession lastAttach() {
        return (ClientMessage.AttachSession) daemon().sentMessages().stream()
                .filter(m -> m instanceof ClientMessage.AttachSession).reduce((a, b) -> b).orElseThrow();
    }

    /** Answers {@code request}, granting the flow it asked for (4 MiB of credit when lossless). */
    void attachResult(ClientMessage.AttachSession request, SessionInfo info, long replayFrom, long end, boolean truncated) {
        attachResult(request, info, replayFrom, end, truncated, request.flow() == null ? "live" : request.flow());
    }

    void attachResult(ClientMessage.AttachSession request, SessionInfo info, long replayFrom, long end, boolean truncated, String flow) {
        daemon().receive(new ServerMessage.AttachResult(request.reqId(), request.sessionId(), info, replayFrom, end, truncated, false, false,
                flow, "lossless".equals(flow) ? 4L << 20 : null));
    }

    void output(long end, String text) {
        daemon().receive(FrameKind.OUTPUT, "s1", end, text.getBytes(StandardCharsets.UTF_8));
    }

    /** The offsets acknowledged on {@code t}, in order. */
    List<Long> acksOn(FakeTransport t) {
        return t.sentMessages().stream().filter(m -> m instanceof ClientMessage.PtyAck)
                .map(m -> {
                    ClientMessage.PtyAck ack = (ClientMessage.PtyAck) m;
                    assertThat(ack.sessionId()).isEqualTo("s1");
                    return ack.offset();
                }).toList();
    }

    void type(String keys) {
        byte[] b = keys.getBytes(StandardCharsets.UTF_8);
        controller.input(b, b.length);
    }

    List<String> typedInto(FakeTransport t) {
        return t.sentFrames().stream().filter(f -> f.kind() == FrameKind.INPUT)
                .map(f -> f.streamId() + ":" + new String(f.payload(), StandardCharsets.UTF_8)).toList();
    }

    void attached() {
        controller(false, true, "build");
        ClientMessage.AttachSession attach = connectAndResolve("d-1", running);
        attachResult(attach, running, 0, 0, false);
    }

    @Test
    void resolvesTheLabelThenAttachesWithNothingAndItsTerminalsSize() {
        controller(false, true, "build");
        ClientMessage.AttachSession attach = connectAndResolve("d-1", running);
        assertThat(attach.sessionId()).isEqualTo("s1");
        assertThat(attach.since()).isNull();
        assertThat(attach.cols()).isEqualTo(80);
        assertThat(attach.rows()).isEqualTo(24);
        assertThat(attach.readOnly()).isNull();
        attachResult(attach, running, 0, 5, false);
        output(5, "hello");
        assertThat(terminal.screenText()).isEqualTo("hello");
        assertThat(outcome).isNotDone();
    }

    @Test
    void anIdWinsOverALabel() {
        controller(false, true, "s2");
        SessionInfo labelledS2 = Daemons.session("s1", "s2", SessionInfo.RUNNING, 0);
        SessionInfo s2 = Daemons.session("s2", "other", SessionInfo.RUNNING, 0);
        assertThat(connectAndResolve("d-1", labelledS2, s2).sessionId()).isEqualTo("s2");
    }

    @Test
    void unknownSessionExitsWithTwoNamingIt() {
        controller(false, true, "nope");
        daemon().handshake("d-1");
        daemon().receive(new ServerMessage.SessionList(daemon().lastSent().reqId(), List.of(running)));
        assertThat(outcome.join()).isEqualTo(AttachOutcome.failure(2, "limpet: no session 'nope' on box"));
    }

    @Test
    void ambiguousLabelExitsWithTwoListingTheIds() {
        controller(false, true, "build");
        daemon().handshake("d-1");
        daemon().receive(new ServerMessage.SessionList(daemon().lastSent().reqId(),
                List.of(running, Daemons.session("s9", "build", SessionInfo.RUNNING, 0))));
        assertThat(outcome.join().exitCode()).isEqualTo(2);
        assertThat(outcome.join().message()).contains("s1, s9");
    }

    @Test
    void noDaemonExitsWithOneAndSaysHowToStartOne() {
        controller(false, true, "build");
        daemon().fail(DisconnectReason.CONNECTION_REFUSED);
        assertThat(outcome.join()).isEqualTo(AttachOutcome.failure(1,
                "limpet: no limpet daemon at http://127.0.0.1:7420/; start one with `limpet daemon`"));
    }

    @Test
    void keystrokesBecomeBinaryInputFrames() {
        attached();
        type("ls\r");
        assertThat(typedInto(daemon())).containsExactly("s1:ls\r");
    }

    @Test
    void detachKeySendsTheKeysBeforeItDetachesAndExitsZero() {
        attached();
        type("ab\u001cc");
        assertThat(typedInto(daemon())).containsExactly("s1:ab");
        assertThat(daemon().lastSent()).isEqualTo(new ClientMessage.DetachSession(null, "s1"));
        assertThat(outcome.join()).isEqualTo(AttachOutcome.success("[detached from s1]"));
        assertThat(daemon().closed()).isTrue();
    }

    @Test
    void aLostLinkShowsReconnectingAndReattachesFromTheLastOffsetWithoutDuplicates() {
        attached();
        output(7, "line1\r\n");
        output(14, "line2\r\n");
        FakeTransport first = daemon();
        first.fail(DisconnectReason.NETWORK_ERROR);
        assertThat(terminal.status()).isEqualTo("limpet: reconnecting to box… (attempt 1)");

        scheduler.advance(BACKOFF.cap());
        FakeTransport second = daemon();
        assertThat(second).isNotSameAs(first);
        second.fail(DisconnectReason.CONNECTION_REFUSED);
        assertThat(terminal.status()).isEqualTo("limpet: reconnecting to box… (attempt 2)");
        scheduler.advance(BACKOFF.cap());
        assertThat(terminal.statuses).contains("limpet: reconnecting to box… (attempt 2)");

        daemon().handshake("d-1");
        ClientMessage.AttachSession again = lastAttach();
        assertThat(again.since()).isEqualTo(14L);
        attachResult(again, running, 7, 21, false); // the daemon replays more than needed
        output(14, "line2\r\n");
        output(21, "line3\r\n");
        assertThat(terminal.screenText()).isEqualTo("line1\nline2\nline3");
        assertThat(terminal.status()).isNull();
        assertThat(outcome).isNotDone();
    }

    @Test
    void keystrokesWhileReconnectingAreHeldShownAndSentOnceInOrderAfterTheReattach() {
        attached();
        daemon().fail(DisconnectReason.NETWORK_ERROR);
        type("echo ");
        type("hi");
        assertThat(terminal.bells).isZero();
        assertThat(terminal.status()).isEqualTo("limpet: reconnecting to box… (attempt 1) — 2 key(s) held, sent once reattached");
        scheduler.advance(BACKOFF.cap());
        daemon().handshake("d-1");
        type("\r"); // connected but not yet re-attached: held behind the others
        assertThat(typedInto(daemon())).isEmpty();
        attachResult(lastAttach(), running, 0, 0, false);
        assertThat(typedInto(daemon())).containsExactly("s1:echo hi\r");
        type("ok");
        assertThat(typedInto(daemon())).containsExactly("s1:echo hi\r", "s1:ok");
    }

    @Test
    void whatDoesNotFitTheHoldRingsTheBellAndIsSaidWhileWhatFitIsSent() {
        attached();
        daemon().fail(DisconnectReason.NETWORK_ERROR);
        type("a".repeat(TypeAhead.LIMIT - 1));
        type("xy"); // does not fit whole: refused whole
        type("b");
        assertThat(terminal.bells).isEqualTo(1);
        assertThat(terminal.statuses).anySatisfy(st -> assertThat(st).contains("more than 4096 bytes typed: the rest was not sent"));
        scheduler.advance(BACKOFF.cap());
        daemon().handshake("d-1");
        attachResult(lastAttach(), running, 0, 0, false);
        assertThat(typedInto(daemon())).containsExactly("s1:" + "a".repeat(TypeAhead.LIMIT - 1) + "b");
    }

    @Test
    void heldKeysThatCanNoLongerGoAreSaidNeverDroppedSilently() {
        attached();
        daemon().fail(DisconnectReason.NETWORK_ERROR);
        type("ls\r");
        scheduler.advance(BACKOFF.cap());
        daemon().handshake("d-1");
        SessionInfo ended = Daemons.session("s1", "build", SessionInfo.EXITED, 0);
        attachResult(lastAttach(), ended, 0, 0, false);
        assertThat(typedInto(daemon())).isEmpty();
        assertThat(terminal.statuses).contains("limpet: 1 key(s) typed while reconnecting were not sent: the session has exited");
    }

    @Test
    void aDetachWhileKeysAreHeldSaysTheyWereNotSent() {
        attached();
        daemon().fail(DisconnectReason.NETWORK_ERROR);
        type("top");
        type("\u001c");
        assertThat(outcome.join().message()).isEqualTo("[detached from s1] (1 key(s) typed while waiting were not sent)");
    }

    @Test
    void truncatedReplayIsReportedOnTheStatusLine() {
        attached();
        output(5, "hello");
        daemon().fail(DisconnectReason.NETWORK_ERROR);
        scheduler.advance(BACKOFF.cap());
        daemon().handshake("d-1");
        attachResult(lastAttach(), running, 1005, 1010, true);
        assertThat(terminal.status()).contains("1000 bytes of output were lost");
        scheduler.advance(Duration.ofSeconds(5));
        assertThat(terminal.status()).isNull();
    }

    @Test
    void keysTheDaemonHoldsForAStuckSessionAreShownWaitingUntilTheyArriveOrAreOwnedUpTo() {
        attached();
        type("ab");
        daemon().receive(new ServerMessage.InputWaiting("s1", 2, 2));
        assertThat(terminal.status()).isEqualTo("limpet: 2 keys waiting: the session's program is not taking input");
        daemon().receive(new ServerMessage.InputWaiting("other", 5, 5));
        assertThat(terminal.status()).contains("2 keys");
        daemon().receive(new ServerMessage.InputWaiting("s1", 0, 0));
        assertThat(terminal.status()).isNull();
        daemon().receive(new ServerMessage.InputUndelivered("s1", 1, 1, "session_ended"));
        assertThat(terminal.status()).isEqualTo("limpet: 1 key typed never reached the program (session ended)");
    }

    @Test
    void sessionExitEndsAttachWithZero() {
        attached();
        daemon().receive(new ServerMessage.SessionExited("s1", 3, null));
        assertThat(outcome.join()).isEqualTo(AttachOutcome.success("[session s1 exited: 3]"));
    }

    @Test
    void aWindowSizeThatSettlesAfterTheSessionEndedIsNeitherPaintedNorSent() {
        attached();
        terminal.resize(132, 50);
        controller.resized();
        daemon().receive(new ServerMessage.SessionExited("s1", 0, null));
        assertThat(outcome.join()).isEqualTo(AttachOutcome.success("[session s1 exited: 0]"));
        terminal.closed = true;
        int sent = daemon().sentMessages().size();
        scheduler.advance(Duration.ofMillis(100));
        assertThat(daemon().sentMessages()).hasSize(sent);
    }

    @Test
    void attachingAnExitedSessionShowsItsReplayThenReportsTheExit() {
        controller(false, true, "s1");
        SessionInfo exited = Daemons.session("s1", "build", SessionInfo.EXITED, 4);
        ClientMessage.AttachSession attach = connectAndResolve("d-1", exited);
        attachResult(attach, exited, 0, 5, false);
        assertThat(outcome).isNotDone();
        output(5, "bye\r\n");
        assertThat(terminal.written.toString(StandardCharsets.UTF_8)).as("painted before the terminal was given back").contains("bye");
        assertThat(terminal.display.isAlternateScreen()).isFalse();
        assertThat(outcome.join()).isEqualTo(AttachOutcome.success("[session s1 exited: 0]"));
    }

    @Test
    void desyncReattachesFromWhatWasWritten() {
        attached();
        output(7, "abcdefg");
        daemon().receive(new ServerMessage.PtyDesync("s1", 9, "slow_consumer"));
        assertThat(lastAttach().since()).isEqualTo(7L);
    }

    @Test
    void noReconnectExitsOneOnLinkLoss() {
        controller(false, false, "build");
        attachResult(connectAndResolve("d-1", running), running, 0, 0, false);
        daemon().closeByPeer(DisconnectReason.CLOSED_BY_DAEMON);
        assertThat(outcome.join().exitCode()).isEqualTo(1);
        assertThat(outcome.join().message()).contains("lost the connection to box").contains("--no-reconnect");
        assertThat(transports.created).hasSize(1);
    }

    @Test
    void aDifferentDaemonBehindTheSameAddressEndsAttach() {
        attached();
        daemon().fail(DisconnectReason.NETWORK_ERROR);
        scheduler.advance(BACKOFF.cap());
        daemon().handshake("d-2");
        assertThat(outcome.join().exitCode()).isEqualTo(1);
        assertThat(outcome.join().message()).contains("different daemon");
    }

    @Test
    void aSessionGoneAfterReconnectEndsAttachWithOne() {
        attached();
        daemon().fail(DisconnectReason.NETWORK_ERROR);
        scheduler.advance(BACKOFF.cap());
        daemon().handshake("d-1");
        ClientMessage.AttachSession again = lastAttach();
        daemon().receive(ServerMessage.CommandError.of(again.reqId(), "attach_session", "s1", ErrorCode.SESSION_NOT_FOUND, "gone"));
        assertThat(outcome.join()).isEqualTo(AttachOutcome.failure(1, "limpet: session s1 no longer exists on box"));
    }

    @Test
    void aRecoveringDaemonIsAskedAgain() {
        controller(false, true, "build");
        ClientMessage.AttachSession attach = connectAndResolve("d-1", running);
        daemon().receive(ServerMessage.CommandError.of(attach.reqId(), "attach_session", "s1", ErrorCode.DAEMON_RECOVERING, "wait"));
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(lastAttach().reqId()).isNotEqualTo(attach.reqId());
        assertThat(outcome).isNotDone();
    }

    @Test
    void theWindowsSizeIsSentOnceAttachedAndTheSessionIsShownAtItsOwnSizeUntilItFollows() {
        attached();
        output(5, "hello");
        terminal.resize(132, 50);
        controller.resized();
        scheduler.advance(Duration.ofMillis(100));
        assertThat(daemon().lastSent()).isEqualTo(new ClientMessage.PtyResize(null, "s1", 132, 50));
        assertThat(terminal.status()).isEqualTo("limpet: sized for another viewer (80×24) — type here to take it");
        assertThat(terminal.screenText()).isEqualTo("hello");
        daemon().receive(new ServerMessage.SessionResized("s1", 132, 50, 5));
        assertThat(terminal.status()).isNull();
    }

    @Test
    void onceTheTerminalIsGivenBackNothingMoreIsDrawnOnIt() {
        attached();
        output(5, "hello");
        controller.giveTerminalBack(); // what a shutdown hook does on SIGTERM, while output may still come
        assertThat(terminal.display.isAlternateScreen()).isFalse();
        int written = terminal.written.size();
        output(10, "world");
        daemon().fail(DisconnectReason.NETWORK_ERROR);
        controller.giveTerminalBack();
        assertThat(terminal.written.size()).isEqualTo(written);
    }

    @Test
    void aTerminalThatIsNoTerminalGetsTheSessionsBytesAsTheyComeAndStatusLinesOfTheirOwn() {
        terminal.interactive = false;
        controller(false, true, "build");
        ClientMessage.AttachSession attach = connectAndResolve("d-1", running);
        assertThat(attach.since()).as("a pipe records the session: the stream from its start").isEqualTo(0L);
        daemon().receive(new ServerMessage.AttachResult(attach.reqId(), "s1", running, 30, 30, false, true, false, "lossless", 4L << 20));
        daemon().receive(FrameKind.SNAPSHOT, "s1", 30, "\033[Hsnap".getBytes(StandardCharsets.UTF_8));
        output(35, "\033[1mx");
        assertThat(terminal.written.toString(StandardCharsets.UTF_8)).isEqualTo("\033[Hsnap\033[1mx");
        daemon().fail(DisconnectReason.NETWORK_ERROR);
        assertThat(terminal.notes).containsExactly("limpet: reconnecting to box… (attempt 1)");
    }

    @Test
    void theFirstAttachTakesTheSizeAReattachAfterALostLinkDoesNot() {
        attached();
        assertThat(daemon().sentMessages()).contains(new ClientMessage.TakeSize(null, "s1"));
        daemon().fail(DisconnectReason.NETWORK_ERROR);
        scheduler.advance(BACKOFF.cap());
        daemon().handshake("d-1");
        attachResult(lastAttach(), running, 0, 0, false);
        assertThat(daemon().sentMessages()).noneMatch(m -> m instanceof ClientMessage.TakeSize);
    }

    @Test
    void aResizeIsTakenInWhereTheOutputReachesItsOffset() {
        attached();
        daemon().receive(new ServerMessage.SessionResized("s1", 10, 24, 6));
        output(12, "abcdef" + "ghijkl"); // six characters at 80 columns, then six at 10
        assertThat(terminal.screenText()).isEqualTo("abcdefghij\nkl");
        assertThat(terminal.status()).isEqualTo("limpet: sized for another viewer (10×24) — type here to take it");
    }

    @Test
    void aResizeAnnouncedAfterTheOutputPassedItsOffsetIsTakenInAtItsPlace() {
        attached();
        output(4, "\033[2J"); // at 80 columns
        output(10, "abcdef");
        output(16, "ghijkl"); // already at 10 columns, but the announcement comes after it
        daemon().receive(new ServerMessage.SessionResized("s1", 10, 24, 10));
        assertThat(terminal.screenText()).isEqualTo("abcdefghij\nkl");
        output(17, "m");
        assertThat(terminal.screenText()).isEqualTo("abcdefghij\nklm");
        assertThat(terminal.status()).isEqualTo("limpet: sized for another viewer (10×24) — type here to take it");
    }

    @Test
    void aResizeAnnouncedForTheOffsetAlreadyReachedIsTakenInAtOnce() {
        attached();
        output(6, "abcdef");
        daemon().receive(new ServerMessage.SessionResized("s1", 10, 24, 6));
        output(12, "ghijkl");
        assertThat(terminal.screenText()).isEqualTo("abcdefghij\nkl");
    }

    @Test
    void aSnapshotDrawsTheSessionsScreenWhateverTheTerminalShowedBefore() {
        terminal.write("$ leftovers of the shell that ran limpet attach".getBytes(StandardCharsets.UTF_8));
        controller(false, true, "build");
        ClientMessage.AttachSession attach = connectAndResolve("d-1", running);
        daemon().receive(new ServerMessage.AttachResult(attach.reqId(), "s1", running, 30, 30, false, true, false, "lossless", 4L << 20));
        daemon().receive(FrameKind.SNAPSHOT, "s1", 30, "\033[?1049h\033[H  1 vim line\033[2;1H~".getBytes(StandardCharsets.UTF_8));
        assertThat(terminal.display.isAlternateScreen()).isTrue();
        assertThat(terminal.screenText()).isEqualTo("  1 vim line\n~");
        type("\u001c");
        assertThat(terminal.display.isAlternateScreen()).isFalse();
        assertThat(terminal.display.text()).isEqualTo("$ leftovers of the shell that ran limpet attach");
    }

    @Test
    void readOnlyAsksForAReadOnlyLiveAttachmentAndSendsNoKeysOrSizes() {
        controller(true, true, "build");
        ClientMessage.AttachSession attach = connectAndResolve("d-1", running);
        assertThat(attach.readOnly()).isTrue();
        assertThat(attach.flow()).as("a watcher never paces the session").isEqualTo("live");
        attachResult(attach, running, 0, 0, false);
        int sent = daemon().sentTexts.size();
        type("x");
        terminal.resize(60, 24);
        controller.resized();
        scheduler.advance(Duration.ofMillis(100));
        assertThat(typedInto(daemon())).isEmpty();
        assertThat(daemon().sentTexts).hasSize(sent);
        assertThat(terminal.bells).isEqualTo(1);
    }

    @Test
    void outputOfOtherSessionsIsNotShown() {
        attached();
        daemon().receive(FrameKind.OUTPUT, "s2", 3, "xyz".getBytes());
        assertThat(terminal.screenText()).isEmpty();
        assertThat(acksOn(daemon())).isEmpty();
    }

    // ---- lossless flow -----------------------------------------------------------------------------

    @Test
    void attachAsksForLosslessFlowWithTheDaemonsDefaultWindow() {
        controller(false, true, "build");
        ClientMessage.AttachSession attach = connectAndResolve("d-1", running);
        assertThat(attach.flow()).isEqualTo("lossless");
        assertThat(attach.window()).isNull();
    }

    @Test
    void writtenOutputIsAcknowledgedOnceNothingMoreIsPendingFromTheSocket() {
        attached();
        output(5, "hello");
        assertThat(acksOn(daemon())).containsExactly(5L);
        output(12, " world!");
        assertThat(terminal.screenText()).isEqualTo("hello world!");
        assertThat(acksOn(daemon())).containsExactly(5L, 12L);
    }

    @Test
    void aBurstOfOutputIsAcknowledgedEverySixtyFourKibAndOnceMoreWhenItEnds() {
        attached();
        String block = "x".repeat(40 * 1024);
        // Three frames the socket delivered together: they are all on the loop before any is written.
        scheduler.execute(() -> {
            output(40 * 1024, block);
            output(80 * 1024, block);
            output(120 * 1024, block);
        });
        assertThat(terminal.screenText()).endsWith("xxx");
        assertThat(acksOn(daemon())).containsExactly(80L * 1024, 120L * 1024);
    }

    @Test
    void acknowledgementsAreMonotonicAndNeverPassWhatWasWritten() {
        attached();
        output(5, "hello");
        output(5, "hello"); // a duplicate: nothing new to acknowledge
        output(3, "hel");
        output(8, "lo, w"); // overlaps: only ", w" is new
        assertThat(terminal.screenText()).isEqualTo("hello, w");
        List<Long> acks = acksOn(daemon());
        assertThat(acks).containsExactly(5L, 8L).isSorted();

    }

    @Test
    void noAcknowledgementsWhenTheDaemonGrantsOnlyLiveFlow() {
        controller(false, true, "build");
        ClientMessage.AttachSession attach = connectAndResolve("d-1", running);
        assertThat(attach.flow()).isEqualTo("lossless");
        attachResult(attach, running, 0, 0, false, "live");
        output(5, "hello");
        output(70_005, "y".repeat(70_000));
        assertThat(terminal.screenText()).endsWith("yyy");
        assertThat(acksOn(daemon())).isEmpty();
    }

    @Test
    void anAckTimeoutDesyncReattachesLosslessFromWhatWasWrittenAndAcknowledgesAfresh() {
        attached();
        output(7, "abcdefg");
        daemon().receive(new ServerMessage.PtyDesync("s1", 9, "ack_timeout"));
        ClientMessage.AttachSession again = lastAttach();
        assertThat(again.since()).isEqualTo(7L);
        assertThat(again.flow()).isEqualTo("lossless");
        output(9, "hi"); // still in flight from the dropped attachment: not shown, not acknowledged
        assertThat(acksOn(daemon())).containsExactly(7L);
        attachResult(again, running, 7, 9, false);
        output(9, "hi");
        assertThat(terminal.screenText()).isEqualTo("abcdefghi");
        assertThat(acksOn(daemon())).containsExactly(7L, 9L);
    }

    @Test
    void afterAReconnectAcknowledgementsRestartOnTheNewConnectionAndTheReplayIsAcknowledged() {
        attached();
        output(7, "line1\r\n");
        FakeTransport first = daemon();
        first.fail(DisconnectReason.NETWORK_ERROR);
        scheduler.advance(BACKOFF.cap());
        daemon().handshake("d-1");
        ClientMessage.AttachSession again = lastAttach();
        assertThat(again.flow()).isEqualTo("lossless");
        assertThat(again.since()).isEqualTo(7L);
        attachResult(again, running, 0, 14, false); // replays from before what we have
        output(7, "line1\r\n"); // a duplicate, but the new attachment's window counts from 0: acknowledge it
        output(14, "line2\r\n");
        assertThat(terminal.screenText()).isEqualTo("line1\nline2");
        assertThat(acksOn(first)).containsExactly(7L);
        assertThat(acksOn(daemon())).containsExactly(7L, 14L);
    }

    List<String> repliesInto(FakeTransport t) {
        return t.sentFrames().stream().filter(f -> f.kind() == FrameKind.INPUT && f.offset() == 1)
                .map(f -> new String(f.payload(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void theTerminalsAnswersToReplayedQueriesNeverReachTheSessionButAnswersToLiveOnesGoAsReplies() {
        controller(false, true, "build");
        ClientMessage.AttachSession attach = connectAndResolve("d-1", running);
        attachResult(attach, running, 0, 12, false);
        output(12, "$ \033[c\033[6n ");  // the replay: questions asked while nobody watched
        type("\033[?1;2c\033[5;3R");    // the person's terminal answers them
        assertThat(typedInto(daemon())).as("no answer typed into the shell").isEmpty();
        scheduler.advance(Duration.ofSeconds(2));
        output(15, "\033[c");            // a live question
        type("\033[?1;2c");
        assertThat(repliesInto(daemon())).containsExactly("\033[?1;2c");
        type("ls\r");
        assertThat(typedInto(daemon())).contains("s1:ls\r");
    }
}
