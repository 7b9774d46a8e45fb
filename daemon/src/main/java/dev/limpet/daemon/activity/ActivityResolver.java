package dev.limpet.daemon.activity;

import dev.limpet.protocol.Activity;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Turns the evidence about one session into its {@link Activity}. Pure: no I/O, no
 * threads, no timers of its own; time comes from the injected {@link Clock}. The caller feeds
 * evidence as it arrives and, because a quiet period can change the answer with no new evidence,
 * asks {@link #nextChange()} when to call {@link #resolve()} again. Not thread-safe: one owner
 * (the session's event thread) calls it.
 *
 * <p>The evidence, strongest first:
 * <ol>
 *   <li><b>Hook reports</b> ({@code limpet hook <state>}): authoritative. The only source of
 *       {@link Activity#PENDING_APPROVAL}. A report holds until the next report, except that
 *       agent-authored title evidence set more than {@code hookGrace} after it may move it on (see
 *       below): not every agent reports every change (Claude Code's Stop hook does not run when a
 *       person interrupts it; nothing reports an approval being granted).</li>
 *   <li><b>The terminal title</b> (OSC 0/2): agents put a spinner glyph at its start while they work.
 *       Once a session has shown a spinner title, the title alone speaks for it: spinner →
 *       {@code working}, any other title → {@code waiting_input}; output is then ignored (the agent
 *       redrawing its prompt as a person types is not work).</li>
 *   <li><b>Output activity</b>, for agents that never showed a spinner: output within the last
 *       {@code quietPeriod} → {@code working}; quiet after output → {@code waiting_input}.</li>
 * </ol>
 * Sessions that are not agents (plain shells) take no heuristics: {@code unknown} until a hook
 * reports, then the hook's state. A session whose program exited is {@code idle}.
 *
 * <p>A revived agent ({@link #revived}) redraws its screen without doing anything: its output is
 * no evidence until a person types into it (or a hook reports), so it stays {@code unknown}
 * instead of flipping between {@code working} and {@code waiting_input} on redraws.
 *
 * <p>A person typing into a session that waits for them ({@link #typed()}) answers it: the session
 * is {@code working} from then on until newer evidence says otherwise (the agent's next report, a
 * title it sets, or, for an agent known only by its output, a quiet period after the echo). Agents
 * whose only hook is the end of a turn (Codex's notify) would otherwise show {@code waiting_input}
 * for good. No client clears a waiting state on its own: every client sees the same answer,
 * decided here. A terminal's automatic reply to a query is not a person and is never fed here.
 *
 * <p>Why a grace after each hook: the hook runs as a separate process while the agent's own title
 * and output travel through the PTY, so a spinner frame written just before a Stop hook can arrive
 * just after it. Evidence from inside the grace never overrides the report.
 */
public final class ActivityResolver {
    /** Tunables; the defaults suit the agents limpet knows. */
    public record Settings(Duration quietPeriod, Duration hookGrace) {
        public static final Settings DEFAULTS = new Settings(Duration.ofSeconds(3), Duration.ofSeconds(2));

        public Settings {
            Objects.requireNonNull(quietPeriod, "quietPeriod");
            Objects.requireNonNull(hookGrace, "hookGrace");
            if (quietPeriod.isNegative() || quietPeriod.isZero()) {
                throw new IllegalArgumentException("quietPeriod must be positive, was " + quietPeriod);
            }
            if (hookGrace.isNegative()) {
                throw new IllegalArgumentException("hookGrace must not be negative, was " + hookGrace);
            }
        }
    }

    private final Clock clock;
    private final Settings settings;
    private final boolean agent;

    private Activity hookState;
    private Instant hookAt;
    private boolean spinning;
    private Instant titleAt;
    private boolean titleSpeaks;
    private Instant outputAt;
    /** When a person last answered a session whose title speaks for it (see {@link #typed()}). */
    private Instant answeredAt;
    private boolean exited;
    private boolean outputCounts = true;

    /**
     * @param agent whether the session runs a coding agent (its launch has an agent kind); only
     *     agents get title and output heuristics
     */
    public ActivityResolver(Clock clock, Settings settings, boolean agent) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.agent = agent;
    }

    /**
     * Starts from a stored activity (a session recovered across a daemon restart). A state the
     * store's recovery keeps ({@code waiting_input}, {@code pending_approval}) counts as a hook
     * report made now, so it holds until newer evidence; any other starts with no evidence, so
     * output and the title can move it (a {@code working} set by the rule is a guess, not a report).
     */
    public static ActivityResolver resumedFrom(Activity stored, Clock clock, Settings settings, boolean agent) {
        ActivityResolver r = new ActivityResolver(clock, settings, agent);
        if (stored != null && stored.preservedAcrossRestart()) {
            r.hook(stored);
        }
        return r;
    }

    /** A revived agent: its output counts as work only once a person typed into it ({@link #typed()}). */
    public static ActivityResolver revived(Clock clock, Settings settings, boolean agent) {
        ActivityResolver r = new ActivityResolver(clock, settings, agent);
        r.outputCounts = false;
        return r;
    }

    /** Whether a person's keystroke would change anything (so the caller need not report every one). */
    public boolean awaitsPerson() {
        return !outputCounts || resolve().needsPerson();
    }

    /** A hook reported {@code state}. */
    public void hook(Activity state) {
        Objects.requireNonNull(state, "state");
        if (!state.reportable()) {
            throw new IllegalArgumentException("a hook cannot report " + state.wireName() + "; one of "
                    + Activity.reportableNames());
        }
        hookState = state;
        hookAt = clock.instant();
        outputCounts = true;
    }

    /** The program set its window title (OSC 0 or 2) to {@code title}; null or "" clears it. */
    public void title(String title) {
        spinning = Spinners.leadsWithSpinner(title);
        titleAt = clock.instant();
        titleSpeaks |= spinning;
    }

    /** The program wrote output. */
    public void output() {
        if (outputCounts) {
            outputAt = clock.instant();
        }
    }

    /**
     * A person typed into the session (not a terminal's automatic reply). A revived agent's output
     * counts as evidence from now on. While the session waits for a person, this is the answer: it
     * is {@code working} until newer evidence. Otherwise nothing changes.
     */
    public void typed() {
        outputCounts = true;
        Activity now = resolve();
        if (!now.needsPerson()) {
            return;
        }
        Instant at = clock.instant();
        if (hookState != null) {
            // As if the agent had reported working: its next report, or its own title after the grace, moves it on.
            hookState = Activity.WORKING;
            hookAt = at;
        } else if (titleSpeaks) {
            answeredAt = at;
        } else {
            // Known by its output only: the answer's echo is output; a quiet period after it reads as waiting again.
            outputAt = at;
        }
    }

    /** The program exited. */
    public void exited() {
        exited = true;
    }

    /** The activity now. */
    public Activity resolve() {
        if (exited) {
            return Activity.IDLE;
        }
        if (!agent) {
            return hookState == null ? Activity.UNKNOWN : hookState;
        }
        if (hookState == null) {
            return heuristic(clock.instant());
        }
        if (titleSpeaks && titleAt != null && titleAt.isAfter(hookAt.plus(settings.hookGrace()))) {
            // The agent's own title, set well after the report, says what it does now.
            if (spinning) {
                return Activity.WORKING;
            }
            if (hookState == Activity.WORKING) {
                return Activity.WAITING_INPUT;
            }
        }
        return hookState;
    }

    /**
     * When {@link #resolve()} may answer differently without new evidence (the end of a quiet
     * period), or empty when it cannot.
     */
    public Optional<Instant> nextChange() {
        if (exited || !agent || hookState != null || titleSpeaks || outputAt == null) {
            return Optional.empty();
        }
        Instant quietAt = outputAt.plus(settings.quietPeriod());
        return quietAt.isAfter(clock.instant()) ? Optional.of(quietAt) : Optional.empty();
    }

    private Activity heuristic(Instant now) {
        if (titleSpeaks) {
            boolean answeredSinceTitle = answeredAt != null && !answeredAt.isBefore(titleAt);
            return spinning || answeredSinceTitle ? Activity.WORKING : Activity.WAITING_INPUT;
        }
        if (outputAt == null) {
            return Activity.UNKNOWN;
        }
        return now.isBefore(outputAt.plus(settings.quietPeriod())) ? Activity.WORKING : Activity.WAITING_INPUT;
    }
}
