package dev.limpet.daemon.backend;

import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.WarningCode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What start-up recovery found: the live sessions it re-adopted ({@code recovered}, and how they
 * were launched in {@code launches}), how many entries came to each other {@link Count}, and
 * warnings (code, message) for clients. A backend's recovery builds it ({@link #builder()}); the
 * store's part of recovery adds the {@code missing} count.
 */
public record RecoveryReport(List<RuntimeInfo> recovered, List<RecoveredLaunch> launches, Map<Count, Integer> counts,
        List<Warning> warnings) {

    /**
     * What recovery counts, named as in the log, the metrics, {@code limpet status} and
     * {@code initial_state.recovery}. One entry may count twice: a live worker quarantined because
     * it did not answer is both {@code failed} and {@code quarantined}.
     */
    public enum Count {
        /** Live sessions re-adopted: the size of {@link #recovered()}. */
        RECOVERED,
        /** Entries whose data plane is provably gone (or a stale owner's worker, reclaimed), removed. */
        PRUNED,
        /** Stored sessions believed alive that no data plane holds: they became {@code recoverable}. */
        MISSING,
        /** Live-looking sessions that could not be re-adopted. */
        FAILED,
        /** Registry entries moved aside for an operator. */
        QUARANTINED;

        /** As it is named outside: {@code pruned}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public record Warning(WarningCode code, String message) {
        /** As clients get it, in {@code initial_state.warnings}. */
        public ServerMessage.Warning toMessage() {
            return ServerMessage.Warning.of(code, message);
        }
    }

    public static final RecoveryReport EMPTY = builder().build();

    /** {@code counts} holds every count but {@link Count#RECOVERED}, which is the size of {@code recovered}. */
    public RecoveryReport {
        recovered = List.copyOf(recovered);
        launches = List.copyOf(launches);
        EnumMap<Count, Integer> copy = new EnumMap<>(Count.class);
        copy.putAll(counts);
        copy.remove(Count.RECOVERED);
        counts = Collections.unmodifiableMap(copy);
        warnings = List.copyOf(warnings);
    }

    public static Builder builder() {
        return new Builder();
    }

    public int count(Count c) {
        return c == Count.RECOVERED ? recovered.size() : counts.getOrDefault(c, 0);
    }

    /** The same report with the count of stored sessions found without a data plane. */
    public RecoveryReport withMissing(int n) {
        Map<Count, Integer> next = new EnumMap<>(Count.class);
        next.putAll(counts);
        next.put(Count.MISSING, n);
        return new RecoveryReport(recovered, launches, next, warnings);
    }

    /** The counts as clients get them, in {@code initial_state.recovery}. */
    public ServerMessage.RecoveryCounts toMessage() {
        return new ServerMessage.RecoveryCounts(count(Count.RECOVERED), count(Count.PRUNED), count(Count.MISSING), count(Count.FAILED),
                count(Count.QUARANTINED));
    }

    /** A report as a backend's recovery finds it, one entry at a time. Not thread-safe. */
    public static final class Builder {
        private final List<RuntimeInfo> recovered = new ArrayList<>();
        private final List<RecoveredLaunch> launches = new ArrayList<>();
        private final Map<Count, Integer> counts = new EnumMap<>(Count.class);
        private final List<Warning> warnings = new ArrayList<>();

        private Builder() {}

        /** A live session re-adopted: what runs, and how it was launched. */
        public Builder recovered(RuntimeInfo runtime, RecoveredLaunch launch) {
            recovered.add(runtime);
            launches.add(launch);
            return this;
        }

        /** One more entry came to {@code c}. */
        public Builder count(Count c) {
            return count(c, 1);
        }

        /** {@code n} more entries came to {@code c} (never {@link Count#RECOVERED}: see {@link #recovered}). */
        public Builder count(Count c, int n) {
            if (c == Count.RECOVERED) {
                throw new IllegalArgumentException("a recovered session is added with its runtime and launch");
            }
            counts.merge(c, n, Integer::sum);
            return this;
        }

        public Builder warn(WarningCode code, String message) {
            warnings.add(new Warning(code, message));
            return this;
        }

        public RecoveryReport build() {
            return new RecoveryReport(recovered, launches, counts, warnings);
        }
    }
}
