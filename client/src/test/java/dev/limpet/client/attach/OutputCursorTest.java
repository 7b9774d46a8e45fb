package dev.limpet.client.attach;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.stream.OutputChunk;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OutputCursorTest {
    final OutputCursor cursor = new OutputCursor();

    static ServerMessage.AttachResult result(long replayFrom, long endOffset, boolean truncated) {
        return new ServerMessage.AttachResult("attach-1", "s1", null, replayFrom, endOffset, truncated, false, false);
    }

    String out(long end, String payload) {
        return new String(cursor.onOutput(end, payload.getBytes(StandardCharsets.US_ASCII)), StandardCharsets.US_ASCII);
    }

    @Test
    void firstAttachAsksForEverythingAndStartsAtTheReplay() {
        assertThat(cursor.since()).isNull();
        assertThat(cursor.onAttachResult(result(100, 110, true))).isEqualTo(OutputCursor.Resume.FIRST);
        assertThat(out(105, "hello")).isEqualTo("hello");
        assertThat(cursor.since()).isEqualTo(105L);
    }

    @Test
    void duplicateChunksAreDroppedAndOverlapsTrimmed() {
        cursor.onAttachResult(result(0, 0, false));
        assertThat(out(5, "hello")).isEqualTo("hello");
        assertThat(out(5, "hello")).isEmpty();
        assertThat(out(3, "hel")).isEmpty();
        assertThat(out(8, "lo, w")).isEqualTo(", w");
        assertThat(cursor.have()).isEqualTo(8);
    }

    @Test
    void aChunkIsPassedOnWholeTrimmedToItsNewPartOrDroppedAsADuplicate() {
        cursor.onAttachResult(result(0, 0, false));
        OutputChunk hello = OutputChunk.of("hello".getBytes(StandardCharsets.US_ASCII), 5);
        assertThat(cursor.onOutput(hello)).isSameAs(hello);
        assertThat(cursor.onOutput(hello)).isNull();
        OutputChunk fresh = cursor.onOutput(OutputChunk.of("lo, w".getBytes(StandardCharsets.US_ASCII), 8));
        assertThat(fresh.startOffset()).isEqualTo(5);
        assertThat(new String(fresh.bytes(), StandardCharsets.US_ASCII)).isEqualTo(", w");
        assertThat(cursor.have()).isEqualTo(8);
    }

    @Test
    void reattachWithinTheRingContinuesWithoutGap() {
        cursor.onAttachResult(result(0, 0, false));
        out(5, "hello");
        assertThat(cursor.onAttachResult(result(5, 9, false))).isEqualTo(OutputCursor.Resume.CONTINUOUS);
        assertThat(out(9, "abcd")).isEqualTo("abcd");
    }

    @Test
    void truncatedReplayReportsTheLostBytes() {
        cursor.onAttachResult(result(0, 0, false));
        out(5, "hello");
        assertThat(cursor.onAttachResult(result(50, 60, true))).isEqualTo(OutputCursor.Resume.LOST);
        assertThat(cursor.lostBytes()).isEqualTo(45);
        assertThat(out(60, "0123456789")).isEqualTo("0123456789");
    }

    @Test
    void aStreamBehindUsIsARestart() {
        cursor.onAttachResult(result(0, 0, false));
        out(500, "x".repeat(500));
        assertThat(cursor.onAttachResult(result(0, 20, true))).isEqualTo(OutputCursor.Resume.RESTARTED);
        assertThat(out(20, "y".repeat(20))).hasSize(20);
    }

    @Test
    void snapshotMovesTheCursorToItsPosition() {
        cursor.onAttachResult(result(0, 0, true));
        assertThat(cursor.onSnapshot(40, "screen".getBytes())).isEqualTo("screen".getBytes());
        assertThat(out(40, "old")).isEmpty();
        assertThat(out(45, "new!!")).isEqualTo("new!!");
    }
}
