package dev.limpet.workerapi.rpc;

import java.util.Set;

/**
 * The daemon ↔ pty-worker RPC: versions, method and event names, limits. Over a Unix socket the
 * daemon sends {@code hello} as one JSON line and the worker answers with one; everything after that
 * answer is length-prefixed {@link dev.limpet.protocol.frame.Frame}s (CONTROL frames carry the JSON
 * envelopes, OUTPUT/SNAPSHOT/INPUT/ACK/CREDIT frames raw bytes). The hello is mutual: the daemon's
 * carries a {@code challenge}, the worker answers with its own and a {@code proof} keyed by the
 * session's control token ({@link HandshakeKey}), and only then does the daemon send
 * {@code authenticate}; the token itself never crosses the socket.
 *
 * <p>Evolution is additive: a new minor may add methods, events and optional fields; anything else
 * needs a new major and a drain/migration plan. Workers outlive the daemon that started them, so a
 * daemon must still serve a running worker one minor behind it (an upgrade replaces the jar under
 * it); one minor is the whole window, so every branch on the agreed minor is the difference between
 * the current minor and the previous one. What each minor added is in {@code docs/protocol.md}.
 */
public final class WorkerRpc {
    public static final int RPC_MAJOR = 1;
    public static final int RPC_MINOR = 7;
    /** Oldest minor this build still talks to: the previous one. */
    public static final int OLDEST_MINOR = RPC_MINOR - 1;
    /** From this minor on a worker lends its PTY master to the daemon ({@link #LEND_MASTER}). */
    public static final int LEND_MASTER_MINOR = 7;

    public static final String HELLO = "hello";
    public static final String INFO = "info";
    public static final String ATTACH = "attach";
    public static final String DETACH = "detach";
    public static final String RESIZE = "resize";
    public static final String SIGNAL = "signal";
    public static final String REMOVE = "remove";
    public static final String HEALTH = "health";
    public static final String WATCH = "watch";
    public static final String CAPTURE = "capture";
    public static final String REPLAY = "replay";
    /**
     * The worker sends its PTY master to the daemon over a socket the daemon listens on
     * ({@link WorkerPayloads.LendMasterParams}), so the daemon writes keys to the program without a
     * hop through the worker; input on the link stays for when the master takes no more.
     */
    public static final String LEND_MASTER = "lend_master";
    /** The daemon's proof, right after the hello (never part of {@link #METHODS}). */
    public static final String AUTHENTICATE = "authenticate";

    /** The child exited; sent to attached and watching connections. */
    public static final String EVENT_EXIT = "exit";
    /** Runtime facts changed (size, title, the output's end at most once a second); sent to watching connections. */
    public static final String EVENT_STATE = "state";

    /** Longest line either side accepts: only the hello and its answer are lines. */
    public static final int MAX_LINE_BYTES = 64 << 10;
    /** Longest frame either side accepts (a snapshot with its scrollback is the largest). */
    public static final int MAX_FRAME_BYTES = 16 << 20;
    /** Replay bytes travel in OUTPUT frames of at most this many payload bytes. */
    public static final int REPLAY_CHUNK = 256 * 1024;
    /** The class that runs a pty-worker (the daemon starts it by name: it never loads it). */
    public static final String WORKER_MAIN_CLASS = "dev.limpet.worker.WorkerMain";
    /** The most sessions one dense host ({@code WorkerMain --host N}) may serve: the daemon checks its setting against it, the worker its argument. */
    public static final int MAX_HOST_SESSIONS = 256;

    /** Methods a worker serves once the hello is done. */
    public static final Set<String> METHODS = Set.of(HELLO, INFO, ATTACH, DETACH, RESIZE, SIGNAL, REMOVE, HEALTH, WATCH, CAPTURE,
            REPLAY, LEND_MASTER);

    private WorkerRpc() {}

    /** Whether a worker on a connection that agreed on {@code minor} lends its PTY master. */
    public static boolean lendsMaster(int minor) {
        return minor >= LEND_MASTER_MINOR;
    }

    /** The versions this build speaks, as its refusals name them: {@code 1.6–1.7}. */
    public static String window() {
        return RPC_MAJOR + "." + OLDEST_MINOR + "–" + RPC_MAJOR + "." + RPC_MINOR;
    }

    /** Whether a peer speaking {@code major.minor} is inside this build's compatibility window. */
    public static boolean compatible(int major, int minor) {
        return major == RPC_MAJOR && minor >= OLDEST_MINOR;
    }
}
