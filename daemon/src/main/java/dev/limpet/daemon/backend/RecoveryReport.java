package dev.limpet.daemon.backend;

import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.WarningCode;
import java.util.List;

/**
 * What start-up recovery found: live sessions adopted ({@code recovered}, with their launch facts
 * in {@code sessions}), stale entries pruned, stored sessions whose data plane is gone
 * ({@code missing}, filled in by reconciliation), entries of live-looking workers that could not be
 * recovered ({@code failed}), entries moved aside for inspection ({@code quarantined}); plus
 * warnings (code, message) for clients.
 */
public record RecoveryReport(List<RuntimeInfo> recovered, int pruned, int missing, int failed, int quarantined,
        List<Warning> warnings, List<RecoveredSession> sessions) {

    public record Warning(WarningCode code, String message) {
        /** As clients get it, in {@code initial_state.warnings}. */
        public ServerMessage.Warning toMessage() {
            return ServerMessage.Warning.of(code, message);
        }
    }

    public static final RecoveryReport EMPTY = new RecoveryReport(List.of(), 0, 0, 0, 0, List.of());

    public RecoveryReport {
        recovered = List.copyOf(recovered);
        warnings = List.copyOf(warnings);
        sessions = sessions == null ? List.of() : List.copyOf(sessions);
    }

    /** A report without launch facts (backends whose sessions never outlive the daemon). */
    public RecoveryReport(List<RuntimeInfo> recovered, int pruned, int missing, int failed, int quarantined, List<Warning> warnings) {
        this(recovered, pruned, missing, failed, quarantined, warnings, List.of());
    }

    /** The same report with the count of stored sessions found without a data plane. */
    public RecoveryReport withMissing(int count) {
        return new RecoveryReport(recovered, pruned, count, failed, quarantined, warnings, sessions);
    }
}
