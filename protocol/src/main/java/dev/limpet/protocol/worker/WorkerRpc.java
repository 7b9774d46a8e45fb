package dev.limpet.protocol.worker;

import java.util.Set;

/**
 * The daemon ↔ pty-worker RPC: versions, method and event names, limits. JSON lines over a Unix
 * socket; {@code hello} first. Evolution is additive: a new minor may add methods, events and
 * optional fields; anything else needs a new major and a drain/migration plan.
 *
 * <p>History:
 * <ul>
 *   <li>1.0: hello, info, attach, detach, input, resize, signal, remove, health.</li>
 *   <li>1.1: adds {@code watch} (the worker pushes state and exit) and {@code capture} (screen as
 *       text); hello may carry the owner lease. A 1.0 worker is polled with {@code info}.</li>
 * </ul>
 */
public final class WorkerRpc {
    public static final int RPC_MAJOR = 1;
    public static final int RPC_MINOR = 1;
    /** Oldest minor this build still talks to: the current and the previous minor. */
    public static final int OLDEST_MINOR = RPC_MINOR - 1;

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

    /** Live output of an attached connection. */
    public static final String EVENT_OUTPUT = "output";
    /** The child exited; sent to attached and watching connections. */
    public static final String EVENT_EXIT = "exit";
    /** Runtime facts changed (size); sent to watching connections. Since 1.1. */
    public static final String EVENT_STATE = "state";

    /** Longest line either side accepts (an attach reply carries a base64 ring of up to 1 MiB by default). */
    public static final int MAX_LINE_BYTES = 48 << 20;

    private WorkerRpc() {}

    /** Methods a worker speaking {@code minor} serves. */
    public static Set<String> methods(int minor) {
        Set<String> base = Set.of(HELLO, INFO, ATTACH, DETACH, INPUT, RESIZE, SIGNAL, REMOVE, HEALTH);
        if (minor >= 1) {
            return union(base, Set.of(WATCH, CAPTURE));
        }
        return base;
    }

    /** Whether a peer speaking {@code major.minor} is inside this build's compatibility window. */
    public static boolean compatible(int major, int minor) {
        return major == RPC_MAJOR && minor >= OLDEST_MINOR && minor >= 0;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        java.util.HashSet<String> all = new java.util.HashSet<>(a);
        all.addAll(b);
        return Set.copyOf(all);
    }
}
