package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.testing.StoppedProcess;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.protocol.frame.Frame;
import dev.limpet.protocol.frame.FrameKind;
import dev.limpet.terminal.os.Posix;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.testkit.RawEcho;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys as a person types them into two sessions over one connection (a page with two tabs) while
 * one session is stuck: its worker stopped, as a worker stuck in GC, swap or a slow disk would be,
 * or its program reading nothing. Real daemon, real worker processes, real PTYs, keys as binary
 * INPUT frames.
 */
class StuckSessionInputTest {
    @TempDir
    static Path root;
    static DaemonHarness d;
    static WsTestClient c;
    /** The sessions' workers and programs. */
    static final List<Long> started = new CopyOnWriteArrayList<>();
    long stopped = -1;

    @BeforeAll
    static void start() throws Exception {
        d = DaemonHarness.isolatedWorkers(root);
        c = d.client("stuck-input");
    }

    @BeforeEach
    void forgetErrors() {
        c.errors.clear();
    }

    @AfterEach
    void resume() throws Exception {
        if (stopped > 0) {
            Posix.kill(stopped, Signal.CONT);
            stopped = -1;
        }
    }

    /**
     * Workers outlive their daemon by design, so the sessions' workers and programs are ended here:
     * left running, each would wait out its orphan time after the test JVM is gone.
     */
    @AfterAll
    static void stop() {
        c.close();
        d.close();
        for (long pid : started) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void aStoppedWorkerHoldsUpOnlyItsOwnSessionWhoseKeysArriveOnceAndInOrderWhenItResumes() throws Exception {
        SessionInfo a = echoSession();
        SessionInfo b = echoSession();
        stopped = workerOf(a);
        StoppedProcess.stop(stopped);

        for (String key : new String[] {"o", "n", "e", "-", "t", "w", "o"}) {
            type(a, key.getBytes(StandardCharsets.UTF_8));
        }
        type(b, "B".getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(20)).until(() -> c.outputOf(b.id()).endsWith("B"));
        assertThat(processState(stopped)).as("B's echo came while A's worker was still stopped").isEqualTo('T');
        assertThat(c.outputOf(a.id())).doesNotContain("o");

        Posix.kill(stopped, Signal.CONT);
        stopped = -1;
        await().atMost(Duration.ofSeconds(20)).until(() -> c.outputOf(a.id()).endsWith("one-two"));
        Thread.sleep(300); // a second copy would come right behind the first
        assertThat(c.outputOf(a.id())).isEqualTo("ready\r\none-two");
        assertThat(c.errors).isEmpty();
    }

    @Test
    void keysForAProgramThatReadsNothingWaitInTheDaemonUpToItsLimitAndTheRestIsRefusedWithItsCodeLosingNothingElse() throws Exception {
        SessionInfo a = echoSession();
        // The program stops reading: its terminal fills, then keys wait in the daemon (shown as
        // pending), whether they were going to the lent master or through the worker.
        stopped = a.pid();
        StoppedProcess.stop(stopped);

        int pastes = 60;
        List<byte[]> typed = new ArrayList<>();
        for (int i = 0; i < pastes; i++) {
            byte[] paste = new byte[10_000];
            Arrays.fill(paste, (byte) ('a' + i % 26));
            typed.add(paste);
            type(a, paste);
        }
        // The program reads nothing while stopped: past the terminal's buffers and the daemon's queue, pastes are refused.
        List<ServerMessage.CommandError> refusals = new ArrayList<>();
        List<ServerMessage.InputWaiting> waiting = new ArrayList<>();
        try {
            c.await(ServerMessage.class, m -> {
                if (m instanceof ServerMessage.CommandError e && ErrorCode.INPUT_QUEUE_FULL.wire().equals(e.code())) {
                    refusals.add(e);
                } else if (m instanceof ServerMessage.InputWaiting w && w.sessionId().equals(a.id())) {
                    waiting.add(w);
                }
                return false;
            }, Duration.ofSeconds(3));
        } catch (AssertionError quiet) {
            // collected for 3 s
        }
        assertThat(refusals).as("past the terminal's buffers and 256 KiB in the daemon, pastes are refused").isNotEmpty()
                .allSatisfy(full -> {
                    assertThat(full.sessionId()).isEqualTo(a.id());
                    assertThat(full.command()).isEqualTo("pty_input");
                    assertThat(full.retryable()).isTrue();
                });
        int accepted = pastes - refusals.size();
        assertThat(accepted).as("256 KiB wait in the daemon besides what the terminal holds").isGreaterThanOrEqualTo(26);
        assertThat(waiting).as("the keys are shown waiting").anySatisfy(w -> assertThat(w.keys()).isPositive());

        Posix.kill(stopped, Signal.CONT);
        stopped = -1;
        c.await(ServerMessage.InputWaiting.class, w -> w.sessionId().equals(a.id()) && w.keys() == 0);
        int expectedLength = "ready\r\n".length() + accepted * 10_000;
        await().atMost(Duration.ofSeconds(30)).until(() -> c.outputOf(a.id()).length() >= expectedLength);
        String out = c.outputOf(a.id());
        assertThat(out).startsWith("ready\r\n").hasSize(expectedLength);
        // Each accepted paste whole, once, in the order typed. Which ones: the first that did not fit
        // is refused, and a later one may still fit once the kernel has moved the terminal's input
        // on from its flip buffer, even with the program stopped.
        int next = 0;
        for (int at = "ready\r\n".length(); at < out.length(); at += 10_000) {
            String paste = out.substring(at, at + 10_000);
            assertThat(paste.chars().distinct().count()).as("a whole paste at %d", at).isEqualTo(1);
            char letter = paste.charAt(0);
            while (next < pastes && typed.get(next)[0] != letter) {
                next++;
            }
            assertThat(next).as("the paste at %d (%s) comes after the one before it", at, letter).isLessThan(pastes);
            next++;
        }
    }

    private static SessionInfo echoSession() throws Exception {
        SessionInfo s = d.spawn(c, DaemonHarness.program(RawEcho.class));
        started.addAll(List.of(workerOf(s), s.pid()));
        d.attach(c, s.id(), 0L); // from the start: the output as bytes, not a screen snapshot
        await().atMost(Duration.ofSeconds(30)).until(() -> c.outputOf(s.id()).contains("ready\r\n"));
        return s;
    }

    private static void type(SessionInfo s, byte[] keys) {
        c.sendBinary(Frame.encode(FrameKind.INPUT, s.id(), 0, keys));
    }

    /** The worker is the parent of the session's program (read from the kernel, not from a file it may rewrite). */
    private static long workerOf(SessionInfo s) throws Exception {
        ProcessHandle worker = ProcessHandle.of(s.pid()).orElseThrow().parent().orElseThrow();
        assertThat(Files.readString(Path.of("/proc", Long.toString(worker.pid()), "cmdline"))).contains("WorkerMain");
        return worker.pid();
    }

    private static char processState(long pid) throws Exception {
        return StoppedProcess.state(Path.of("/proc", Long.toString(pid), "stat"));
    }
}
