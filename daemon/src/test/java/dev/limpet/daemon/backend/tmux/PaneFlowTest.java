package dev.limpet.daemon.backend.tmux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.daemon.backend.tmux.PaneFlow.Output;
import dev.limpet.daemon.backend.tmux.PaneFlow.Resume;
import org.junit.jupiter.api.Test;

/** A tmux pane's flow decisions, without tmux: queue, pause, drop, continue and repaint. */
class PaneFlowTest {
    final PaneFlow flow = new PaneFlow(100, 25, 400);

    @Test
    void outputIsQueuedUntilTheHighWaterMarkWhereAPauseIsAskedOnce() {
        assertThat(flow.output(60)).isEqualTo(Output.QUEUE);
        assertThat(flow.output(60)).isEqualTo(Output.QUEUE_AND_ASK_PAUSE);
        assertThat(flow.output(60)).as("in flight before tmux paused: kept, not asked again").isEqualTo(Output.QUEUE);
        assertThat(flow.queued()).isEqualTo(180);
    }

    @Test
    void aPausedPaneDropsItsOutputThenContinuesAndRepaintsOnceTheReaderHasDrainedIt() {
        flow.output(120);
        assertThat(flow.paused()).isTrue();
        assertThat(flow.output(10)).isEqualTo(Output.DROP);
        assertThat(flow.dropped()).isEqualTo(10);
        flow.taken(90);
        assertThat(flow.resume(false)).as("30 bytes still above the low-water mark").isEqualTo(Resume.NONE);
        flow.taken(10);
        assertThat(flow.resume(false)).isEqualTo(Resume.CONTINUE_AND_REPAINT);
        assertThat(flow.isPaused()).isFalse();
        assertThat(flow.resume(false)).as("one repaint at a time").isEqualTo(Resume.NONE);
        flow.repainted(50);
        assertThat(flow.queued()).isEqualTo(70);
        flow.taken(70);
        assertThat(flow.resume(false)).as("nothing left to repaint").isEqualTo(Resume.NONE);
    }

    @Test
    void aPauseThatComesWhileARepaintIsOnItsWayIsContinuedAndRepaintedAfterIt() {
        flow.output(120);
        flow.paused();
        flow.taken(120);
        assertThat(flow.resume(false)).isEqualTo(Resume.CONTINUE_AND_REPAINT);
        flow.output(110);
        assertThat(flow.paused()).as("tmux paused the pane again before the repaint came back").isTrue();
        flow.repainted(20);
        assertThat(flow.isPaused()).isTrue();
        flow.taken(130);
        assertThat(flow.resume(false)).as("never left paused: continued and repainted again").isEqualTo(Resume.CONTINUE_AND_REPAINT);
        flow.repainted(20);
        flow.taken(20);
        assertThat(flow.resume(false)).isEqualTo(Resume.NONE);
        assertThat(flow.pauses()).isEqualTo(2);
    }

    @Test
    void outputPastTheHardLimitIsDroppedAndRepaintedWithoutAPause() {
        assertThat(flow.output(100)).isEqualTo(Output.QUEUE_AND_ASK_PAUSE);
        flow.output(300);
        assertThat(flow.output(1)).isEqualTo(Output.DROP);
        assertThat(flow.output(1)).as("dropping until the repaint").isEqualTo(Output.DROP);
        flow.taken(400);
        assertThat(flow.resume(false)).isEqualTo(Resume.REPAINT);
    }

    @Test
    void aPaneWithoutAClientDoesNotRepaintAndAReconnectForgetsWhatWasInFlight() {
        flow.askRepaint();
        assertThat(flow.resume(true)).isEqualTo(Resume.NONE);
        assertThat(flow.resume(false)).isEqualTo(Resume.REPAINT);
        flow.reconnected();
        assertThat(flow.resume(false)).as("the repaint on the old client never comes back: ask again").isEqualTo(Resume.REPAINT);
    }

    @Test
    void atTheProgramsEndAPausedPaneIsContinuedFirstAndStillOwesItsRepaint() {
        flow.output(120);
        flow.paused();
        flow.taken(120);
        assertThat(flow.repaintOwed()).isTrue();
        assertThat(flow.continueForTheEnd()).isTrue();
        assertThat(flow.isPaused()).isFalse();
        assertThat(flow.continueForTheEnd()).as("continued once").isFalse();
        assertThat(flow.output(10)).as("what tmux had not read yet is queued").isEqualTo(Output.QUEUE);
        flow.taken(10);
        assertThat(flow.resume(false)).as("then the repaint, without another continue").isEqualTo(Resume.REPAINT);
        assertThat(flow.repaintOwed()).as("on its way").isTrue();
        flow.repainted(50);
        assertThat(flow.repaintOwed()).isFalse();
    }

    @Test
    void marksOutOfOrderAreRefused() {
        assertThatThrownBy(() -> new PaneFlow(100, 100, 400)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PaneFlow(500, 25, 400)).isInstanceOf(IllegalArgumentException.class);
    }
}
