package dev.limpet.daemon.backend.tmux;

import java.time.Clock;
import java.time.Duration;

/**
 * Tunables of the tmux backend.
 *
 * @param executable     the tmux program ({@code tmux}, found on {@code PATH}, unless a path is given)
 * @param ringBytes      output ring per session, kept by the daemon
 * @param pauseAfter     tmux pauses a pane's output to the daemon when the daemon lags it by this
 *                       much ({@code pause-after}); the daemon also pauses it itself past a queue bound
 * @param healthInterval one {@code list-panes} per interval checks every session ({@code LIMPET_TMUX_HEALTH_INTERVAL}, seconds)
 * @param commandTimeout a one-shot tmux command that takes longer has failed
 * @param clock          time of the health machine and the checkpoint
 */
public record TmuxSettings(String executable, int ringBytes, Duration pauseAfter, Duration healthInterval, Duration commandTimeout,
        Clock clock) {
    public static final Duration HEALTH_INTERVAL = Duration.ofSeconds(30);
    public static final Duration PAUSE_AFTER = Duration.ofSeconds(5);

    public static TmuxSettings defaults(int ringBytes) {
        Duration health = HEALTH_INTERVAL;
        String env = System.getenv("LIMPET_TMUX_HEALTH_INTERVAL");
        if (env != null && !env.isBlank()) {
            try {
                health = Duration.ofSeconds(Math.max(1, Long.parseLong(env.strip())));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("LIMPET_TMUX_HEALTH_INTERVAL must be a number of seconds, got '" + env + "'");
            }
        }
        return new TmuxSettings("tmux", ringBytes, PAUSE_AFTER, health, Duration.ofSeconds(10), Clock.systemUTC());
    }

    public TmuxSettings withHealthInterval(Duration d) {
        return new TmuxSettings(executable, ringBytes, pauseAfter, d, commandTimeout, clock);
    }

    public TmuxSettings withPauseAfter(Duration d) {
        return new TmuxSettings(executable, ringBytes, d, healthInterval, commandTimeout, clock);
    }
}
