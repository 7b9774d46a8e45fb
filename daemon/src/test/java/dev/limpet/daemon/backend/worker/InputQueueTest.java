package dev.limpet.daemon.backend.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.backend.InputOrigin;
import dev.limpet.daemon.backend.worker.InputQueue.Notice;
import dev.limpet.daemon.backend.worker.InputQueue.Send;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class InputQueueTest {
    static final InputOrigin ALICE = origin();
    static final InputOrigin BOB = origin();

    static InputOrigin origin() {
        return new InputOrigin() {
            @Override
            public void waiting(String sessionId, int keys, long bytes) {}

            @Override
            public void undelivered(String sessionId, int keys, long bytes, String reason) {}
        };
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(List<Send> sends) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Send s : sends) {
            out.write(s.data(), s.offset(), s.length());
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void keysGoOutInOrderEachOfferAFrameOfItsOwnNumberedFromTheBaseAndLeaveOnlyWhenAcknowledged() {
        InputQueue q = new InputQueue(100, InputQueue.DEFAULT_LIMIT);
        q.offer(b("ls"), ALICE, 0);
        q.offer(b("\r"), ALICE, 0);
        List<Send> sends = q.take();
        assertThat(sends).as("text and Enter stay two writes").extracting(Send::end).containsExactly(102L, 103L);
        assertThat(text(sends)).isEqualTo("ls\r");
        assertThat(q.take()).as("sent once").isEmpty();
        assertThat(q.waitingBytes()).isEqualTo(3);
        q.acked(102);
        assertThat(q.waitingBytes()).isEqualTo(1);
        q.acked(103);
        assertThat(q.isEmpty()).isTrue();
    }

    @Test
    void aFullQueueRefusesAnOfferWholeAndKeepsWhatWaits() {
        InputQueue q = new InputQueue(0, 10);
        assertThat(q.offer(b("12345678"), ALICE, 0)).isEqualTo(InputQueue.Offer.QUEUED);
        assertThat(q.offer(b("abc"), ALICE, 0)).isEqualTo(InputQueue.Offer.FULL);
        assertThat(q.offer(b("ab"), ALICE, 0)).isEqualTo(InputQueue.Offer.QUEUED);
        assertThat(text(q.take())).isEqualTo("12345678ab");
    }

    @Test
    void anEmptyQueueTakesOnePasteLargerThanItsLimitCutIntoFrames() {
        InputQueue q = new InputQueue(0, 10);
        byte[] paste = new byte[InputQueue.MAX_FRAME + 5];
        assertThat(q.offer(paste, ALICE, 0)).isEqualTo(InputQueue.Offer.QUEUED);
        assertThat(q.offer(b("x"), ALICE, 0)).isEqualTo(InputQueue.Offer.FULL);
        List<Send> sends = q.take();
        assertThat(sends).extracting(Send::length).containsExactly(InputQueue.MAX_FRAME, 5);
        assertThat(sends).extracting(Send::end).containsExactly((long) InputQueue.MAX_FRAME, (long) paste.length);
    }

    @Test
    void theLinkCarriesAtMostTheWindowInBytesAndInFramesUntilAcknowledgementsCome() {
        InputQueue q = new InputQueue(0, InputQueue.DEFAULT_LIMIT);
        q.offer(new byte[(int) InputQueue.WINDOW_BYTES + 100], ALICE, 0);
        List<Send> first = q.take();
        assertThat(first.stream().mapToLong(Send::length).sum()).isEqualTo(InputQueue.WINDOW_BYTES);
        assertThat(q.take()).isEmpty();
        q.acked(first.getFirst().end());
        assertThat(q.take().stream().mapToLong(Send::length).sum()).as("the rest").isEqualTo(100);

        InputQueue keys = new InputQueue(0, InputQueue.DEFAULT_LIMIT);
        int sent = 0;
        for (int i = 0; i < 40; i++) {
            keys.offer(b("k"), ALICE, 0);
            sent += keys.take().size(); // one frame per key while the link has room
        }
        assertThat(sent).isEqualTo(InputQueue.WINDOW_FRAMES);
        keys.acked(InputQueue.WINDOW_FRAMES);
        List<Send> rest = keys.take();
        assertThat(rest).as("what waited goes as the next window's frames").hasSize(InputQueue.WINDOW_FRAMES);
        assertThat(text(rest)).isEqualTo("k".repeat(InputQueue.WINDOW_FRAMES));
    }

    @Test
    void aNewLinkResendsExactlyWhatTheWorkerHasNotWritten() {
        InputQueue q = new InputQueue(0, InputQueue.DEFAULT_LIMIT);
        q.offer(b("abc"), ALICE, 0);
        q.offer(b("def"), BOB, 0);
        assertThat(text(q.take())).isEqualTo("abcdef");
        // The link broke; the worker says it wrote "abcd" (a frame is written whole or not at all,
        // but a daemon that restarted may have numbered its frames otherwise).
        q.relinked(4L);
        List<Send> again = q.take();
        assertThat(text(again)).isEqualTo("ef");
        assertThat(again.getLast().end()).isEqualTo(6);
        q.offer(b("g"), ALICE, 0);
        assertThat(text(q.take())).isEqualTo("g");
    }

    @Test
    void theFirstLinkToAWorkerStartsTheNumberingWhereItsInputStands() {
        InputQueue q = new InputQueue(0, InputQueue.DEFAULT_LIMIT);
        q.relinked(5_000L);
        q.offer(b("x"), ALICE, 0);
        assertThat(q.take().getFirst().end()).isEqualTo(5_001);
    }

    @Test
    void keysGoToALentMasterOneOfferAtATimeAndArriveAsTheyAreWritten() {
        InputQueue q = new InputQueue(0, InputQueue.DEFAULT_LIMIT);
        q.offer(b("abc"), ALICE, 0);
        q.offer(b("de"), BOB, 0);
        Send first = q.nextDirect();
        assertThat(text(List.of(first))).isEqualTo("abc");
        assertThat(first.end()).isEqualTo(3);
        assertThat(q.nextDirect()).as("the same keys until they are written").isEqualTo(first);
        q.wroteDirect(3);
        assertThat(text(List.of(q.nextDirect()))).as("never joined to the next offer").isEqualTo("de");
        q.wroteDirect(2);
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.nextDirect()).isNull();
    }

    @Test
    void whatTheMasterDoesNotTakeGoesOnTheLinkAndTheMasterWaitsUntilTheLinkIsAcknowledged() {
        InputQueue q = new InputQueue(0, InputQueue.DEFAULT_LIMIT);
        q.offer(b("abcdef"), ALICE, 0);
        q.offer(b("g"), BOB, 0);
        q.nextDirect();
        q.wroteDirect(2);
        List<Send> link = q.take();
        assertThat(link).extracting(Send::end).containsExactly(6L, 7L);
        assertThat(text(link)).isEqualTo("cdefg");
        q.offer(b("h"), ALICE, 0);
        assertThat(q.linkIdle()).isFalse();
        assertThat(q.nextDirect()).as("keys may not overtake those on the link").isNull();
        q.acked(6);
        assertThat(q.nextDirect()).isNull();
        q.acked(7);
        assertThat(q.linkIdle()).isTrue();
        Send h = q.nextDirect();
        assertThat(text(List.of(h))).isEqualTo("h");
        assertThat(h.end()).isEqualTo(8);
    }

    @Test
    void aNewLinkResendsNothingThatWentToTheMaster_theWorkersEndLagsBehindIt() {
        InputQueue q = new InputQueue(0, InputQueue.DEFAULT_LIMIT);
        q.offer(b("abc"), ALICE, 0);
        q.nextDirect();
        q.wroteDirect(3);
        q.offer(b("d"), BOB, 0);
        q.take();
        // The worker never saw "abc" (it went to the master) and the link broke before "d" was written.
        q.relinked(0);
        List<Send> again = q.take();
        assertThat(text(again)).isEqualTo("d");
        assertThat(again.getFirst().end()).isEqualTo(4);
        q.acked(4);
        q.relinked(0);
        q.offer(b("e"), ALICE, 0);
        assertThat(q.take().getFirst().end()).as("the numbering goes on from ours").isEqualTo(5);
    }

    @Test
    void whoeverWaitedIsToldWhenTheMasterTookTheirKeys() {
        InputQueue q = new InputQueue(0, InputQueue.DEFAULT_LIMIT);
        q.offer(b("ab"), ALICE, 1_000);
        assertThat(q.overdue(1_300, 250)).containsExactly(new Notice(ALICE, 1, 2));
        q.nextDirect();
        assertThat(q.wroteDirect(2)).containsExactly(new Notice(ALICE, 0, 0));
    }

    @Test
    void whoeverTypedIsToldOnceKeysWaitedAMomentAndAgainWhenTheyArrived() {
        InputQueue q = new InputQueue(0, InputQueue.DEFAULT_LIMIT);
        q.offer(b("a"), ALICE, 1_000);
        q.offer(b("bc"), BOB, 1_010);
        q.offer(b("d"), ALICE, 1_020);
        q.take();
        assertThat(q.overdue(1_100, 250)).as("not yet").isEmpty();
        assertThat(q.overdue(1_250, 250)).containsExactly(new Notice(ALICE, 2, 2), new Notice(BOB, 1, 2));
        assertThat(q.overdue(1_500, 250)).as("told already").isEmpty();
        q.offer(b("e"), BOB, 1_510);
        assertThat(q.overdue(1_750, 250)).containsExactly(new Notice(BOB, 2, 3));
        assertThat(q.acked(1)).as("ALICE's first key arrived").containsExactly(new Notice(ALICE, 1, 1));
        assertThat(q.acked(4)).containsExactly(new Notice(ALICE, 0, 0), new Notice(BOB, 1, 1));
        q.take();
        assertThat(q.acked(5)).containsExactly(new Notice(BOB, 0, 0));
        assertThat(q.acked(5)).isEmpty();
    }

    @Test
    void keysThatArriveQuicklyAreNeverShownAsWaiting() {
        InputQueue q = new InputQueue(0, InputQueue.DEFAULT_LIMIT);
        q.offer(b("a"), ALICE, 0);
        q.take();
        assertThat(q.acked(1)).isEmpty();
        assertThat(q.overdue(10_000, 250)).isEmpty();
    }

    @Test
    void whenTheSessionEndsEveryOriginLearnsHowManyOfItsKeysNeverArrived() {
        InputQueue q = new InputQueue(0, InputQueue.DEFAULT_LIMIT);
        q.offer(b("ab"), ALICE, 0);
        q.offer(b("c"), BOB, 0);
        q.offer(b("d"), ALICE, 0);
        q.take();
        q.acked(1);
        assertThat(q.drain()).containsExactly(new Notice(ALICE, 2, 2), new Notice(BOB, 1, 1));
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.drain()).isEmpty();
    }

    @Test
    void anAcknowledgementBeyondWhatWasSentCountsOnlyWhatWasSent() {
        InputQueue q = new InputQueue(0, InputQueue.DEFAULT_LIMIT);
        q.offer(b("ab"), ALICE, 0);
        q.take();
        q.offer(b("c"), ALICE, 0);
        q.acked(99);
        assertThat(q.waitingBytes()).isEqualTo(1);
        assertThat(text(q.take())).isEqualTo("c");
    }
}
