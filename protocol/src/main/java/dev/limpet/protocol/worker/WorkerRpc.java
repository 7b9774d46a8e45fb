package dev.limpet.protocol.worker;

import java.util.HashSet;
import java.util.Set;

/**
 * The daemon ↔ pty-worker RPC: versions, method and event names, limits. JSON lines over a Unix
 * socket, {@code hello} first; from 1.2 on, frames after the hello. Evolution is additive: a new
 * minor may add methods, events and optional fields; anything else needs a new major and a
 * drain/migration plan.
 *
 * <p>What each minor adds. Workers outlive the daemon that started them, so a daemon still meets
 * workers of every minor in the window below and behaves as the entry of the minor it agreed on says:
 * <ul>
 *   <li>1.0: hello, info, attach, detach, input, resize, signal, remove, health.</li>
 *   <li>1.1: adds {@code watch} (the worker pushes state and exit) and {@code capture} (screen as
 *       text); hello may carry the owner lease. A 1.0 worker is polled with {@code info}.</li>
 *   <li>1.2: when both sides of a hello speak 1.2 or later, everything after the hello's answer is
 *       length-prefixed {@link dev.limpet.protocol.frame.Frame}s: CONTROL frames carry the JSON
 *       envelopes; output, replay and snapshots are raw bytes in OUTPUT and SNAPSHOT frames (no
 *       base64). {@code attach} names a stream, starts from now or from {@code since} with the
 *       replay as OUTPUT frames, and takes a credit {@code limit} and a {@code hold_ms}; CREDIT
 *       frames (daemon to worker) move a stream's limit; {@code replay} sends bytes (or a
 *       snapshot) from {@code since} on a stream of their own, in order with the live stream;
 *       {@code detach} names the stream. Watchers also get {@code state} (at most once a second) when the output's
 *       end moved.</li>
 *   <li>1.3: a mutual hello; nothing else changes. The daemon's hello carries no
 *       {@code control_token} but a {@code challenge}; the worker answers with its own
 *       {@code challenge} and a {@code proof} (an HMAC of both, keyed by the session's control
 *       token: {@link HandshakeKey}); the daemon checks it and only then sends {@code authenticate}
 *       with its own proof. Until that succeeds the worker serves nothing (any other request gets
 *       {@code unauthorized} and the connection is closed) and records no owner lease; a daemon
 *       whose hello finds a worker that cannot prove itself closes the connection having sent
 *       nothing secret. A 1.3 worker still accepts the token hello of a 1.1/1.2 daemon; a 1.3
 *       daemon sends the token hello only to a worker whose registry entry says it speaks 1.2 or
 *       older, and only after the peer's {@code SO_PEERCRED} showed our own user. Frames start
 *       after the hello's answer, as in 1.2 ({@code authenticate} is the first CONTROL frame).</li>
 *   <li>1.4: {@code info} (and so {@code state} and the {@code watch} answer) carries
 *       the screen's window {@code title} (OSC 0/2, at most 256 characters, "" when none); a
 *       watcher whose connection speaks 1.4 also gets a {@code state} when the title changed (at
 *       most five a second, the latest always sent). Older daemons ignore the field and get no
 *       extra events; a daemon reads a missing title (an older worker) as unknown. Additive within
 *       1.4: the {@code capture} answer carries {@code bracketed_paste}, whether the program turned
 *       on DECSET 2004 (how {@code limpet send} frames its text); missing from an older worker, read
 *       as off.</li>
 *   <li>1.5: {@code resize} answers with the stream {@code offset} from which output is at the new
 *       size (the screen model resizes there, and the daemon tells viewers to). An older worker
 *       answers with nothing: its viewers resize at once. {@code capture} takes {@code cells} and
 *       then answers with the {@code screen} cell by cell too.</li>
 *   <li>1.6: keys are frames. The daemon sends a session's input as INPUT frames on a framed
 *       connection, stream id the session id, offset the end of these bytes in the session's input
 *       stream; nothing answers a frame, but the worker sends an ACK frame (same stream, offset
 *       the input written to the PTY so far) after writing, and skips bytes it has written already
 *       (a frame resent after a relink is written once). {@code info} carries {@code input_end}
 *       (where the input stream stands) so a daemon that links again resends exactly what is
 *       missing. An older worker still takes the {@code input} request.</li>
 * </ul>
 *
 * <p>The window stays 1.1–1.6: 1.3 changed the handshake only, 1.4, 1.5 and 1.6 only add, and 1.1 workers may still run.
 */
public final class WorkerRpc {
    public static final int RPC_MAJOR = 1;
    public static final int RPC_MINOR = 6;
    /**
     * Oldest minor this build still talks to: the previous minor and, since 1.3 changed only the
     * handshake, the one before it.
     */
    public static final int OLDEST_MINOR = 1;
    /** From this minor on the hello is mutual (challenge and proofs) and carries no token. */
    public static final int MUTUAL_HELLO_MINOR = 3;
    /** From this minor on {@code info} carries the title and title changes are pushed to watchers. */
    public static final int TITLE_MINOR = 4;
    /** From this minor on input travels as INPUT frames, acknowledged by ACK frames. */
    public static final int INPUT_FRAMES_MINOR = 6;

    public static final String HELLO = "hello";
    public static final String INFO = "info";
    public static final String ATTACH = "attach";
    public static final String DETACH = "detach";
    public static final String INPUT = "input";
    public static final String RESIZE = "resize";
    public static final String SIGNAL = "signal";
    public static final String REMOVE = "remove";
    public static final String HEALTH = "health";
    /** Since 1.1. */
    public static final String WATCH = "watch";
    /** Since 1.1. */
    public static final String CAPTURE = "capture";
    /** Since 1.2. */
    public static final String REPLAY = "replay";
    /** Since 1.3: the daemon's proof, right after a mutual hello (never part of {@link #methods}). */
    public static final String AUTHENTICATE = "authenticate";

    /** Live output of an attached connection. */
    public static final String EVENT_OUTPUT = "output";
    /** The child exited; sent to attached and watching connections. */
    public static final String EVENT_EXIT = "exit";
    /**
     * Runtime facts changed (size; from 1.2 also the output's end, at most once a second; from 1.4
     * also the title); sent to watching connections. Since 1.1.
     */
    public static final String EVENT_STATE = "state";

    /** Longest line either side accepts (a 1.1 attach reply carries the ring in base64). */
    public static final int MAX_LINE_BYTES = 48 << 20;
    /** Longest frame either side accepts (a snapshot with its scrollback is the largest). */
    public static final int MAX_FRAME_BYTES = 16 << 20;
    /** Replay bytes travel in OUTPUT frames of at most this many payload bytes. */
    public static final int REPLAY_CHUNK = 256 * 1024;
    /** The class that runs a pty-worker (the daemon starts it by name: it never loads it). */
    public static final String WORKER_MAIN_CLASS = "dev.limpet.worker.WorkerMain";

    private WorkerRpc() {}

    /** Methods a worker speaking {@code minor} serves. */
    public static Set<String> methods(int minor) {
        Set<String> base = Set.of(HELLO, INFO, ATTACH, DETACH, INPUT, RESIZE, SIGNAL, REMOVE, HEALTH);
        if (minor >= 2) {
            return union(base, Set.of(WATCH, CAPTURE, REPLAY));
        }
        if (minor >= 1) {
            return union(base, Set.of(WATCH, CAPTURE));
        }
        return base;
    }

    /** Whether a hello between sides that agree on {@code minor} is mutual (no token on the wire). */
    public static boolean mutualHello(int minor) {
        return minor >= MUTUAL_HELLO_MINOR;
    }

    /** Whether watchers on a connection that agreed on {@code minor} are told title changes. */
    public static boolean titles(int minor) {
        return minor >= TITLE_MINOR;
    }

    /** Whether input on a connection that agreed on {@code minor} goes as INPUT frames (else {@code input} requests). */
    public static boolean inputFrames(int minor) {
        return minor >= INPUT_FRAMES_MINOR;
    }

    /** Whether a connection on which both sides speak {@code minor} switches to frames after hello. */
    public static boolean framed(int minor) {
        return minor >= 2;
    }

    /** Whether a peer speaking {@code major.minor} is inside this build's compatibility window. */
    public static boolean compatible(int major, int minor) {
        return major == RPC_MAJOR && minor >= OLDEST_MINOR && minor >= 0;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        HashSet<String> all = new HashSet<>(a);
        all.addAll(b);
        return Set.copyOf(all);
    }
}
