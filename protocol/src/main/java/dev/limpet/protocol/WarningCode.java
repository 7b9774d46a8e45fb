package dev.limpet.protocol;

import java.util.Locale;

/**
 * Every code the daemon puts in a {@code warning}: pushed while it runs, or in
 * {@code initial_state.warnings} from its start-up (docs/protocol.md#warning-codes). A warning says
 * something is degraded; it answers no command (that is {@link ErrorCode}). Clients show the
 * message and must accept codes they do not know, so {@link ServerMessage.Warning} carries the
 * code as text.
 */
public enum WarningCode {
    /** Some workers could not be recovered at start-up. */
    WORKER_RECOVERY_PARTIAL,
    /** A worker registry file could not be parsed and was quarantined. */
    WORKER_REGISTRY_CORRUPT,
    /** A worker speaks an incompatible RPC version and was quarantined. */
    WORKER_PROTOCOL_MISMATCH,
    /** A revive went differently than planned (directory gone, journal damaged, a fallback resume). */
    SESSION_REVIVED_WITH_WARNINGS,
    /** The data plane lost a session whose program may still have been running; it is now {@code recoverable}. */
    SESSION_LOST,
    /** tmux backend, at start-up: the private server was not running, or some sessions could not be re-adopted. */
    TMUX_SERVER_GONE,
    /** tmux backend, at start-up: the checkpoint was stale, corrupt or of another version; tmux's own list was used. */
    TMUX_CHECKPOINT,
    /** The daemon's uplink to its relay broke or could not be opened (once per outage). */
    RELAY_UPLINK_DOWN,
    /** A session's keys cross its worker, a hop slower: the worker did not lend its PTY master (once per link). */
    SESSION_KEYS_THROUGH_WORKER;

    /** The code as it appears on the wire, e.g. {@code session_lost}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
