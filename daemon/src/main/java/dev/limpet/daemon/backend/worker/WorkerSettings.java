package dev.limpet.daemon.backend.worker;

import dev.limpet.workerapi.rpc.WorkerRpc;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Tunables of the worker backend.
 *
 * @param ringBytes    output ring per session, kept by the worker
 * @param exitTtl      an exited worker cleans up after this long without an attachment
 * @param orphanTtl    a worker with no daemon connected for this long ends its session (the daemon
 *                     is not coming back); long by default
 * @param rpcTimeout   deadline of one RPC call
 * @param startTimeout how long a new worker may take to listen
 * @param jvmFlags     flags of the worker JVM (serial GC, C1 only, native heap trimmed: see "Worker
 *                     memory" in docs/operations.md); the heap's cap comes first ({@link #maxHeapMiB}),
 *                     so an {@code -Xmx} here overrides it
 * @param rpcMinor     RPC minor new workers speak; null is the current one (tests use the previous)
 * @param standby      pre-started worker JVMs kept waiting for the next spawn (0 or 1)
 * @param hostSessions N (the default {@value #DEFAULT_HOST_SESSIONS}): dense mode, one host process serves up to N
 *                     sessions; 0: a worker process per session ({@code --worker-mode isolated})
 * @param lendMaster   whether the daemon asks each worker for its PTY master and writes keys to it
 *                     (else every key crosses the worker); off with {@code LIMPET_WORKER_LEND_MASTER=0}
 */
public record WorkerSettings(int ringBytes, Duration exitTtl, Duration orphanTtl, Duration rpcTimeout, Duration startTimeout,
        List<String> jvmFlags, Integer rpcMinor, int standby, int hostSessions, boolean lendMaster) {

    /**
     * Sessions per host unless told otherwise: small enough that a host's crash takes a handful of
     * sessions, large enough that a person's usual day fits in one or two JVMs.
     */
    public static final int DEFAULT_HOST_SESSIONS = 16;

    public static final Duration EXIT_TTL = Duration.ofSeconds(45);
    public static final Duration ORPHAN_TTL = Duration.ofDays(7);

    /** Every worker's flags (a person's own from LIMPET_WORKER_JVM_FLAGS follow them). */
    public static final List<String> JVM_FLAGS = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss256k", "-Xms2m",
            "-XX:MaxMetaspaceSize=64m", "-XX:ReservedCodeCacheSize=16m", "-XX:-UsePerfData", "-Xshare:auto",
            "-XX:+IgnoreUnrecognizedVMOptions", "--enable-native-access=ALL-UNNAMED",
            // The worker logs its own lines to stderr; SLF4J without a backend saves ~5 MB per worker.
            "-Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider",
            // Give C1's freed arenas back to the OS (malloc keeps them otherwise): ~6 MB per idle worker.
            "-XX:TrimNativeHeapInterval=5000",
            // Keep the heap tight: a small young generation, shrink as soon as it is mostly free,
            // all at once at a full collection (a host asks for one after a burst: HeapReturn).
            "-Xmn1m", "-XX:MinHeapFreeRatio=1", "-XX:MaxHeapFreeRatio=10", "-XX:-ShrinkHeapInSteps",
            // Map the JDK's CDS archive where it was dumped instead of relocating it: its pages stay
            // clean and shared between workers instead of private copies (~7 MB less anonymous memory).
            "-XX:+UnlockDiagnosticVMOptions", "-XX:ArchiveRelocationMode=0");

    /**
     * A worker started from the workers' class-data archive {@code cache} ({@code limpet
     * train-caches}), a dynamic archive on top of the JDK's own: limpet's classes and the lambda and
     * FFM classes spun at start come parsed, verified and linked. About a third less CPU to a warm
     * worker, and less memory (the archive's read-only part is one mapping for every worker; its
     * metadata is no longer each worker's own). Not the JDK's AOT cache: its archived heap objects
     * need a larger heap floor, which cost more memory than it saved.
     */
    public static List<String> withCache(Path cache) {
        return List.of("-XX:SharedArchiveFile=" + cache);
    }

    /** Training the workers' archive into {@code output}, written when the JVM exits: what {@link #withCache} runs it with. */
    public static List<String> trainingCache(Path output) {
        return List.of("-XX:ArchiveClassesAtExit=" + output);
    }

    public WorkerSettings {
        jvmFlags = List.copyOf(jvmFlags);
        standby = Math.max(0, Math.min(1, standby));
        if (hostSessions < 0 || hostSessions > WorkerRpc.MAX_HOST_SESSIONS) {
            throw new IllegalArgumentException("sessions per worker host must be 1 to " + WorkerRpc.MAX_HOST_SESSIONS
                    + ", not " + hostSessions);
        }
    }

    /** Heap a worker needs besides its sessions': its own objects, its links' buffers. */
    static final int BASE_HEAP_MIB = 32;
    /**
     * Heap a session may need besides its ring: the journal's staging while the disk lags (up to
     * 8 MiB), its link's queue (up to 1 MiB), its screen model (about 13 bytes a cell over the
     * scrollback and the screen: 1 MiB at 80 columns, 3 MiB at 200) and its read buffers.
     */
    static final int SESSION_HEAP_MIB = 16;
    /** The least heap cap, whatever the ring. */
    static final int MIN_HEAP_MIB = 64;

    /**
     * The worker JVM's heap cap ({@code -Xmx}): room for every session it may serve to fill its
     * ring at once: a host out of heap dies, and every session it serves with it. A cap, not a
     * reservation: the heap grows as its sessions' output needs it, and a host gives back what a
     * burst left (the worker's HeapReturn).
     */
    public int maxHeapMiB() {
        long sessions = Math.max(1, hostSessions);
        long ringMiB = ((long) ringBytes + (1 << 20) - 1) >> 20;
        return (int) Math.max(MIN_HEAP_MIB, BASE_HEAP_MIB + sessions * (ringMiB + SESSION_HEAP_MIB));
    }

    /** Whether sessions share host processes (dense mode). */
    public boolean dense() {
        return hostSessions > 0;
    }

    /**
     * Defaults; {@code LIMPET_WORKER_ORPHAN_TTL} (seconds) overrides the orphan TTL and
     * {@code LIMPET_WORKER_JVM_FLAGS} (space-separated) adds worker JVM flags and
     * {@code LIMPET_WORKER_STANDBY=0} turns the standby worker off (default 1) and
     * {@code LIMPET_WORKER_LEND_MASTER=0} sends every key through the worker.
     */
    public static WorkerSettings defaults(int ringBytes) {
        Duration orphan = ORPHAN_TTL;
        String env = System.getenv("LIMPET_WORKER_ORPHAN_TTL");
        if (env != null && env.matches("\\d{1,10}")) {
            orphan = Duration.ofSeconds(Long.parseLong(env));
        }
        List<String> flags = JVM_FLAGS;
        String extra = System.getenv("LIMPET_WORKER_JVM_FLAGS");
        if (extra != null && !extra.isBlank()) {
            flags = new ArrayList<>(JVM_FLAGS);
            flags.addAll(List.of(extra.trim().split("\\s+")));
        }
        int standby = "0".equals(System.getenv("LIMPET_WORKER_STANDBY")) ? 0 : 1;
        boolean lendMaster = !"0".equals(System.getenv("LIMPET_WORKER_LEND_MASTER"));
        return new WorkerSettings(ringBytes, EXIT_TTL, orphan, Duration.ofSeconds(5), Duration.ofSeconds(20), flags, null, standby,
                DEFAULT_HOST_SESSIONS, lendMaster);
    }

    public WorkerSettings withRpcMinor(Integer minor) {
        return new WorkerSettings(ringBytes, exitTtl, orphanTtl, rpcTimeout, startTimeout, jvmFlags, minor, standby, hostSessions, lendMaster);
    }

    public WorkerSettings withStandby(int count) {
        return new WorkerSettings(ringBytes, exitTtl, orphanTtl, rpcTimeout, startTimeout, jvmFlags, rpcMinor, count, hostSessions, lendMaster);
    }

    /** Keys to a lent PTY master ({@code true}), or every key through the worker. */
    public WorkerSettings withLendMaster(boolean lend) {
        return new WorkerSettings(ringBytes, exitTtl, orphanTtl, rpcTimeout, startTimeout, jvmFlags, rpcMinor, standby, hostSessions, lend);
    }

    /** A worker process per session ({@code --worker-mode isolated}). */
    public WorkerSettings isolated() {
        return withHostSessions(0);
    }

    /** Dense mode with {@code sessions} per host; 0 is a process per session. */
    public WorkerSettings withHostSessions(int sessions) {
        return new WorkerSettings(ringBytes, exitTtl, orphanTtl, rpcTimeout, startTimeout, jvmFlags, rpcMinor, standby, sessions, lendMaster);
    }
}
