package dev.limpet.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What the program in a session is doing, as far as limpet can tell (docs/protocol.md,
 * "Activity"). Orthogonal to the runtime state ({@code starting}, {@code running}, ...): a running
 * agent is {@link #WORKING}, {@link #WAITING_INPUT} or {@link #PENDING_APPROVAL}. Plain shells stay
 * {@link #UNKNOWN} unless a hook reports otherwise. {@link #PENDING_APPROVAL} comes only from hook
 * reports, never from what is on the screen.
 */
public enum Activity {
    WORKING,
    WAITING_INPUT,
    PENDING_APPROVAL,
    IDLE,
    UNKNOWN;

    /** The name on the wire, in the store and on the command line: {@code waiting_input}. */
    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The activity named {@code name} (its wire name), or empty for anything else, null included. */
    public static Optional<Activity> parse(String name) {
        if (name == null) {
            return Optional.empty();
        }
        for (Activity a : values()) {
            if (a.wireName().equals(name)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /**
     * Reads a wire name leniently, as clients must (docs/protocol.md, "Activity"): a name a newer
     * daemon added reads as {@link #UNKNOWN}. Where a name is input to check, use {@link #parse}.
     */
    @JsonCreator
    public static Activity fromWire(String name) {
        return parse(name).orElse(UNKNOWN);
    }

    /** The states a hook may report: every one but {@link #UNKNOWN} (a hook that knows nothing says nothing). */
    public boolean reportable() {
        return this != UNKNOWN;
    }

    /**
     * States that mean "a person is needed": kept across a daemon restart while the session's data
     * plane survives (start-up recovery's rule, after reference/pty-worker-sidecars.md).
     */
    public boolean preservedAcrossRestart() {
        return needsPerson();
    }

    /** Whether the program waits for a person: {@link #PENDING_APPROVAL} or {@link #WAITING_INPUT}. */
    public boolean needsPerson() {
        return this == WAITING_INPUT || this == PENDING_APPROVAL;
    }

    /**
     * Where a session with this activity goes in an attention order (every client sorts the same
     * way, docs/ui.md): an approval first, then waiting for input, then everything else (0, 1, 2).
     */
    public int attentionRank() {
        return switch (this) {
            case PENDING_APPROVAL -> 0;
            case WAITING_INPUT -> 1;
            default -> 2;
        };
    }

    /** "working, waiting_input, pending_approval, idle": for error messages and help. */
    public static String reportableNames() {
        return Arrays.stream(values()).filter(Activity::reportable).map(Activity::wireName).collect(Collectors.joining(", "));
    }
}
