package dev.limpet.daemon.backend;

import java.util.List;

/**
 * What start-up recovery found: live sessions adopted, stale entries pruned, entries missing,
 * failures, and entries quarantined for inspection; plus warnings (code, message) for clients.
 */
public record RecoveryReport(List<RuntimeInfo> recovered, int pruned, int missing, int failed, int quarantined,
        List<Warning> warnings) {

    public record Warning(String code, String message) {}

    public static final RecoveryReport EMPTY = new RecoveryReport(List.of(), 0, 0, 0, 0, List.of());

    public RecoveryReport {
        recovered = List.copyOf(recovered);
        warnings = List.copyOf(warnings);
    }
}
