package dev.limpet.daemon.startup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The JDK AOT caches beside a limpet jar (the verbs' {@code limpet-cli.aot}, the daemon's
 * {@code limpet-daemon.aot}, the workers' class-data archive {@code limpet-worker.jsa}, which goes
 * with the workers' copy of the jar) as the launchers see them: fresh (newer than the jar), missing, stale
 * (older than the jar), or failed (training failed for this jar; it is retried after a backoff,
 * {@link #retryDelay}). A cache that is not fresh costs every verb, every daemon start-up (and
 * so every recovery) and every worker start a large part of its time, so it is never silent: {@code limpet status} and
 * {@code limpet doctor} say so.
 *
 * <p>The file {@value #NEXT_TRAINING} (written by a training when it starts and when it fails, deleted
 * when it succeeds) holds two numbers: the epoch second before which no launcher starts a training,
 * and how many trainings failed for this jar. A launcher reads it with the shell's own {@code read},
 * without starting a process.
 */
public record StartupCaches(Path jar, State verbs, State daemon, State workers, int failedAttempts, Instant nextTry) {
    public static final String VERBS_CACHE = "limpet-cli.aot";
    public static final String DAEMON_CACHE = "limpet-daemon.aot";
    public static final String WORKER_CACHE = "limpet-worker.jsa";
    public static final String NEXT_TRAINING = "limpet-aot.next";
    static final Duration FIRST_RETRY = Duration.ofMinutes(5);
    static final Duration LAST_RETRY = Duration.ofHours(24);

    public enum State {
        FRESH, MISSING, STALE, FAILED;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How long after its {@code attempts}-th failed training the next one is tried: 5 min, 20 min, 80 min, … at most a day. */
    public static Duration retryDelay(int attempts) {
        Duration d = FIRST_RETRY;
        for (int i = 1; i < attempts && d.compareTo(LAST_RETRY) < 0; i++) {
            d = d.multipliedBy(4);
        }
        return d.compareTo(LAST_RETRY) > 0 ? LAST_RETRY : d;
    }

    /** The caches beside {@code jar}, read from the file system. */
    public static StartupCaches beside(Path jar) {
        Path dir = jar.toAbsolutePath().getParent();
        long jarTime = modified(jar);
        int attempts = 0;
        Instant next = null;
        Path marker = dir.resolve(NEXT_TRAINING);
        if (jarTime > 0 && modified(marker) >= jarTime) {
            try {
                String[] parts = Files.readString(marker, StandardCharsets.US_ASCII).strip().split("\\s+");
                next = Instant.ofEpochSecond(Long.parseLong(parts[0]));
                attempts = Integer.parseInt(parts[1]);
            } catch (IOException | RuntimeException e) {
                attempts = 1; // a file we cannot read still says a training went wrong
            }
        }
        return new StartupCaches(jar, state(dir.resolve(VERBS_CACHE), jarTime, attempts), state(dir.resolve(DAEMON_CACHE), jarTime, attempts),
                state(dir.resolve(WORKER_CACHE), jarTime, attempts), attempts, next);
    }

    /** Whether {@code cache} was trained for {@code jar} (it is newer). */
    public static boolean freshBeside(Path cache, Path jar) {
        long jarTime = modified(jar);
        return jarTime > 0 && modified(cache) > jarTime;
    }

    private static State state(Path cache, long jarTime, int failedAttempts) {
        long t = modified(cache);
        if (t > jarTime && jarTime > 0) {
            return State.FRESH;
        }
        if (failedAttempts > 0) {
            return State.FAILED;
        }
        return t == 0 ? State.MISSING : State.STALE;
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }

    /** The jar this process runs from, when it runs from one (not from classes in a build tree). */
    public static Optional<Path> jarOfThisProcess() {
        try {
            Path p = Path.of(StartupCaches.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return p.toString().endsWith(".jar") && Files.isRegularFile(p) ? Optional.of(p) : Optional.empty();
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /** The AOT cache this JVM was started with ({@code -XX:AOTCache=}), if any. */
    public static Optional<String> cacheOfThisProcess(List<String> jvmArguments) {
        return jvmArguments.stream().filter(a -> a.startsWith("-XX:AOTCache=")).map(a -> a.substring("-XX:AOTCache=".length())).findFirst();
    }

    /**
     * What is wrong, in one line for a person, or null when every cache is fresh: which cache,
     * why, what it costs and when it is trained again.
     */
    public String problem() {
        if (verbs == State.FRESH && daemon == State.FRESH && workers == State.FRESH) {
            return null;
        }
        StringBuilder s = new StringBuilder();
        if (verbs == daemon && daemon == workers) {
            s.append("the start-up caches of the verbs, the daemon and the workers are ").append(describe(verbs));
        } else {
            s.append("the verbs' start-up cache is ").append(describe(verbs)).append(", the daemon's ").append(describe(daemon))
                    .append(", the workers' ").append(describe(workers));
        }
        s.append(" (beside ").append(jar).append("): verbs, daemon start-up, recovery and new workers run slower");
        if (failedAttempts > 0) {
            s.append("; training failed ").append(failedAttempts).append(failedAttempts == 1 ? " time" : " times");
            if (nextTry != null) {
                s.append(", tried again after ").append(nextTry);
            }
        }
        return s.toString();
    }

    private static String describe(State s) {
        return switch (s) {
            case FRESH -> "fresh";
            case MISSING -> "missing";
            case STALE -> "older than the jar";
            case FAILED -> "not trained (its training failed)";
        };
    }

    /** For {@code /api/status}: each cache's state, the failures and whether {@code thisProcess} (the daemon) started from its cache. */
    public Map<String, Object> status(Optional<String> thisProcess) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("verbs", verbs.wire());
        m.put("daemon", daemon.wire());
        m.put("workers", workers.wire());
        m.put("daemon_started_with_cache", thisProcess.isPresent());
        m.put("failed_trainings", failedAttempts);
        m.put("next_training", nextTry == null ? null : nextTry.toString());
        m.put("problem", problem());
        return m;
    }
}
