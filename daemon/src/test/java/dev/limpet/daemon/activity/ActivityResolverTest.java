package dev.limpet.daemon.activity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.daemon.activity.ActivityResolver.Settings;
import dev.limpet.protocol.Activity;
import dev.limpet.testkit.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ActivityResolverTest {
    private static final Duration QUIET = Duration.ofSeconds(3);
    private static final Duration GRACE = Duration.ofSeconds(2);
    private static final String SPIN_A = "⠋ Fixing the build";
    private static final String SPIN_B = "⠙ Fixing the build";
    private static final String IDLE_TITLE = "✳ Claude Code";

    private final ManualClock clock = new ManualClock();

    private ActivityResolver agent() {
        return new ActivityResolver(clock, new Settings(QUIET, GRACE), true);
    }

    private ActivityResolver shell() {
        return new ActivityResolver(clock, new Settings(QUIET, GRACE), false);
    }

    private void pass(Duration d) {
        clock.advance(d);
    }

    // --- no evidence ---

    @Test
    void aSessionWithNoEvidenceIsUnknown() {
        assertThat(agent().resolve()).isEqualTo(Activity.UNKNOWN);
        assertThat(shell().resolve()).isEqualTo(Activity.UNKNOWN);
        assertThat(agent().nextChange()).isEmpty();
    }

    // --- plain shells ---

    @Test
    void aShellStaysUnknownWhateverItsOutputAndTitle() {
        ActivityResolver r = shell();
        r.output();
        r.title(SPIN_A);
        assertThat(r.resolve()).isEqualTo(Activity.UNKNOWN);
        pass(QUIET.multipliedBy(2));
        assertThat(r.resolve()).isEqualTo(Activity.UNKNOWN);
        assertThat(r.nextChange()).isEmpty();
    }

    @Test
    void aShellTakesEveryStateAHookReportsAndKeepsIt() {
        ActivityResolver r = shell();
        for (Activity a : new Activity[] {Activity.WORKING, Activity.WAITING_INPUT, Activity.PENDING_APPROVAL, Activity.IDLE}) {
            r.hook(a);
            r.output();
            r.title(SPIN_A);
            pass(Duration.ofMinutes(5));
            assertThat(r.resolve()).as(a.wireName()).isEqualTo(a);
        }
    }

    // --- output and the quiet timer ---

    @Test
    void anAgentWritingOutputIsWorkingUntilTheQuietPeriodPasses() {
        ActivityResolver r = agent();
        r.output();
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
        pass(QUIET.minusMillis(1));
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
        pass(Duration.ofMillis(1));
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
    }

    @Test
    void moreOutputRestartsTheQuietPeriod() {
        ActivityResolver r = agent();
        r.output();
        pass(Duration.ofSeconds(2));
        r.output();
        pass(Duration.ofSeconds(2));
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
        pass(Duration.ofSeconds(1));
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
    }

    @Test
    void outputAfterQuietMakesAWaitingAgentWorkAgain() {
        ActivityResolver r = agent();
        r.output();
        pass(QUIET);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
        r.output();
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
    }

    @Test
    void nextChangeIsTheEndOfTheQuietPeriodWhileItRuns() {
        ActivityResolver r = agent();
        r.output();
        var start = clock.instant();
        assertThat(r.nextChange()).contains(start.plus(QUIET));
        pass(Duration.ofSeconds(1));
        assertThat(r.nextChange()).contains(start.plus(QUIET));
        pass(Duration.ofSeconds(2));
        assertThat(r.nextChange()).isEmpty();
    }

    // --- the title ---

    @Test
    void aSpinnerTitleMeansWorkingAndAnyOtherTitleAfterItMeansWaiting() {
        ActivityResolver r = agent();
        r.title(SPIN_A);
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
        pass(Duration.ofMinutes(10));
        assertThat(r.resolve()).as("a spinner holds however long the work takes").isEqualTo(Activity.WORKING);
        r.title(IDLE_TITLE);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
        r.title(SPIN_B);
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
    }

    @Test
    void onceTheTitleHasSpunOutputNoLongerCounts() {
        ActivityResolver r = agent();
        r.title(SPIN_A);
        r.title(IDLE_TITLE);
        r.output(); // the prompt redrawn as a person types
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
        assertThat(r.nextChange()).isEmpty();
    }

    @Test
    void aTitleWithoutASpinnerNeverSeenSpinningLeavesOutputInCharge() {
        ActivityResolver r = agent();
        r.title("vim README.md");
        assertThat(r.resolve()).isEqualTo(Activity.UNKNOWN);
        r.output();
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
        pass(QUIET);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
    }

    @Test
    void spinnerGlyphsAreBrailleDotsAndQuarterCirclesAtTheStart() {
        assertThat(Spinners.leadsWithSpinner("⠋ x")).isTrue();
        assertThat(Spinners.leadsWithSpinner("  ⣾ x")).isTrue();
        assertThat(Spinners.leadsWithSpinner("◐ x")).isTrue();
        assertThat(Spinners.leadsWithSpinner("\u2800 blank braille")).isFalse();
        assertThat(Spinners.leadsWithSpinner("✳ Claude Code")).isFalse();
        assertThat(Spinners.leadsWithSpinner("x ⠋")).isFalse();
        assertThat(Spinners.leadsWithSpinner("")).isFalse();
        assertThat(Spinners.leadsWithSpinner(null)).isFalse();
    }

    // --- hooks are authoritative ---

    @Test
    void everyHookReportSetsTheStateOfAnAgent() {
        ActivityResolver r = agent();
        for (Activity a : new Activity[] {Activity.WORKING, Activity.PENDING_APPROVAL, Activity.WAITING_INPUT, Activity.IDLE,
                Activity.WORKING}) {
            r.hook(a);
            assertThat(r.resolve()).as(a.wireName()).isEqualTo(a);
        }
    }

    @Test
    void aHookReportOutweighsOutputAndTheQuietTimer() {
        ActivityResolver r = agent();
        r.hook(Activity.WAITING_INPUT);
        r.output();
        pass(GRACE.multipliedBy(3));
        r.output(); // a person typing at the prompt echoes output
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
        r.hook(Activity.WORKING);
        pass(QUIET.multipliedBy(10));
        assertThat(r.resolve()).as("a long silent tool run is still work").isEqualTo(Activity.WORKING);
        assertThat(r.nextChange()).isEmpty();
    }

    @Test
    void pendingApprovalComesOnlyFromAHook() {
        ActivityResolver r = agent();
        r.title(SPIN_A);
        r.output();
        r.title("Allow Bash(rm -rf build)? [y/n]");
        pass(QUIET);
        assertThat(r.resolve()).isNotEqualTo(Activity.PENDING_APPROVAL);
        r.hook(Activity.PENDING_APPROVAL);
        assertThat(r.resolve()).isEqualTo(Activity.PENDING_APPROVAL);
    }

    @Test
    void aSpinnerFrameArrivingWithinTheGraceDoesNotUndoAStopReport() {
        ActivityResolver r = agent();
        r.title(SPIN_A);
        r.hook(Activity.WAITING_INPUT);
        pass(GRACE.minusMillis(1));
        r.title(SPIN_B); // written before the hook ran, read after it
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
        pass(Duration.ofMinutes(1));
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
    }

    @Test
    void aSpinnerAfterTheGraceMovesAnApprovalOnToWorking() {
        // Nothing reports that a person granted the approval; the agent's spinner does.
        ActivityResolver r = agent();
        r.title(SPIN_A);
        r.hook(Activity.PENDING_APPROVAL);
        r.title(IDLE_TITLE);
        pass(GRACE.plusMillis(1));
        assertThat(r.resolve()).isEqualTo(Activity.PENDING_APPROVAL);
        r.title(SPIN_A);
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
        r.hook(Activity.WAITING_INPUT);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
    }

    @Test
    void aStillTitleAfterTheGraceEndsAReportedWorkingThatNoHookEnded() {
        // Claude Code runs no Stop hook when a person interrupts it.
        ActivityResolver r = agent();
        r.title(SPIN_A);
        r.hook(Activity.WORKING);
        pass(GRACE.plusMillis(1));
        r.title(IDLE_TITLE);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
    }

    @Test
    void aStillTitleDoesNotTurnAReportedApprovalOrIdleIntoWaiting() {
        for (Activity reported : new Activity[] {Activity.PENDING_APPROVAL, Activity.IDLE, Activity.WAITING_INPUT}) {
            ActivityResolver r = agent();
            r.title(SPIN_A);
            r.hook(reported);
            pass(GRACE.plusSeconds(1));
            r.title(IDLE_TITLE);
            assertThat(r.resolve()).as(reported.wireName()).isEqualTo(reported);
        }
    }

    @Test
    void titlesOfAnAgentThatNeverSpunDoNotOverrideAHook() {
        ActivityResolver r = agent();
        r.hook(Activity.WORKING);
        pass(GRACE.plusSeconds(1));
        r.title("some title");
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
    }

    @Test
    void aHookCannotReportUnknown() {
        ActivityResolver r = agent();
        r.hook(Activity.WAITING_INPUT);
        assertThatThrownBy(() -> r.hook(Activity.UNKNOWN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("working, waiting_input, pending_approval, idle");
        assertThat(r.resolve()).as("nothing changed").isEqualTo(Activity.WAITING_INPUT);
    }

    // --- exit and restart ---

    @Test
    void anExitedSessionIsIdleWhateverCameBefore() {
        ActivityResolver r = agent();
        r.hook(Activity.PENDING_APPROVAL);
        r.title(SPIN_A);
        r.exited();
        assertThat(r.resolve()).isEqualTo(Activity.IDLE);
        ActivityResolver s = shell();
        s.exited();
        assertThat(s.resolve()).isEqualTo(Activity.IDLE);
    }

    @Test
    void aStoredWaitingStateResumedAfterARestartHoldsAgainstOutput() {
        ActivityResolver r = ActivityResolver.resumedFrom(Activity.WAITING_INPUT, clock, new Settings(QUIET, GRACE), true);
        r.output(); // the screen redrawn when the daemon reattaches
        pass(QUIET);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
        ActivityResolver p = ActivityResolver.resumedFrom(Activity.PENDING_APPROVAL, clock, new Settings(QUIET, GRACE), false);
        assertThat(p.resolve()).isEqualTo(Activity.PENDING_APPROVAL);
    }

    @Test
    void aStoredWorkingStateIsAGuessThatOutputAndQuietMoveOn() {
        ActivityResolver r = ActivityResolver.resumedFrom(Activity.WORKING, clock, new Settings(QUIET, GRACE), true);
        r.output();
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
        pass(QUIET);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
    }

    @Test
    void resumingFromUnknownOrNothingStartsWithoutAReport() {
        ActivityResolver r = ActivityResolver.resumedFrom(Activity.UNKNOWN, clock, new Settings(QUIET, GRACE), true);
        assertThat(r.resolve()).isEqualTo(Activity.UNKNOWN);
        r.output();
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
        assertThat(ActivityResolver.resumedFrom(null, clock, new Settings(QUIET, GRACE), false).resolve())
                .isEqualTo(Activity.UNKNOWN);
    }

    // --- settings ---

    @Test
    void settingsRefuseAZeroQuietPeriodAndANegativeGrace() {
        assertThatThrownBy(() -> new Settings(Duration.ZERO, GRACE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("quietPeriod");
        assertThatThrownBy(() -> new Settings(QUIET, Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hookGrace");
        assertThat(new Settings(QUIET, Duration.ZERO).hookGrace()).isZero();
    }

    // --- a person's answer ---

    @Test
    void typingIntoASessionAHookSetWaitingMakesItWorkingUntilTheNextReport() {
        for (Activity waiting : new Activity[] {Activity.WAITING_INPUT, Activity.PENDING_APPROVAL}) {
            ActivityResolver r = agent();
            r.hook(waiting);
            pass(Duration.ofMinutes(1));
            r.typed();
            assertThat(r.resolve()).as(waiting.wireName()).isEqualTo(Activity.WORKING);
            pass(Duration.ofMinutes(1));
            assertThat(r.resolve()).as("holds without evidence").isEqualTo(Activity.WORKING);
            r.hook(waiting);
            assertThat(r.resolve()).as("the agent reports again").isEqualTo(waiting);
        }
    }

    @Test
    void aRevivedAgentsOutputCountsOnceAPersonTyped() {
        ActivityResolver r = ActivityResolver.revived(clock, new Settings(QUIET, GRACE), true);
        r.output();
        assertThat(r.resolve()).isEqualTo(Activity.UNKNOWN);
        assertThat(r.awaitsPerson()).isTrue();
        r.typed();
        assertThat(r.awaitsPerson()).isFalse();
        r.output();
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
    }

    @Test
    void aSubmittedPromptToAnAgentWhoseOnlyHookIsTheTurnsEndIsWorkingUntilThatHookRunsAgain() {
        ActivityResolver r = agent();
        r.hook(Activity.WAITING_INPUT);
        assertThat(r.awaitsPerson()).isTrue();
        r.typed();
        r.output();
        pass(Duration.ofMinutes(2));
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
        assertThat(r.awaitsPerson()).isFalse();
        r.hook(Activity.WAITING_INPUT);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
    }

    @Test
    void typingIntoAShellAHookSetWaitingAnswersIt() {
        ActivityResolver r = shell();
        r.hook(Activity.WAITING_INPUT);
        r.typed();
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
    }

    @Test
    void typingChangesNothingWhenNoOneIsWaitedFor() {
        ActivityResolver shell = shell();
        shell.typed();
        assertThat(shell.resolve()).isEqualTo(Activity.UNKNOWN);
        ActivityResolver idle = agent();
        idle.hook(Activity.IDLE);
        idle.typed();
        assertThat(idle.resolve()).isEqualTo(Activity.IDLE);
    }

    @Test
    void afterAnAnswerTheAgentsOwnIdleTitleMakesItWaitAgain() {
        ActivityResolver r = agent();
        r.hook(Activity.WAITING_INPUT);
        r.typed();
        pass(GRACE.plusSeconds(1));
        r.title(SPIN_A);
        pass(Duration.ofSeconds(5));
        r.title(IDLE_TITLE);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
    }

    @Test
    void anAgentKnownByItsTitleIsWorkingAfterAnAnswerUntilItSetsATitleAgain() {
        ActivityResolver r = agent();
        r.title(SPIN_A);
        pass(Duration.ofSeconds(1));
        r.title(IDLE_TITLE);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
        pass(Duration.ofSeconds(1));
        r.typed();
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
        pass(Duration.ofSeconds(1));
        r.title(IDLE_TITLE);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
    }

    @Test
    void anAgentKnownByItsOutputIsWorkingAfterAnAnswerForAQuietPeriod() {
        ActivityResolver r = agent();
        r.output();
        pass(QUIET);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
        r.typed();
        assertThat(r.resolve()).isEqualTo(Activity.WORKING);
        assertThat(r.nextChange()).isPresent();
        pass(QUIET);
        assertThat(r.resolve()).isEqualTo(Activity.WAITING_INPUT);
    }
}
