package dev.limpet.terminal.journal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.protocol.stream.OutputChunk;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalTest {
    @TempDir
    Path dir;
    final List<String> warnings = new ArrayList<>();

    JournalWriter writer(Path file, long limit) {
        return new JournalWriter(file, limit, warnings::add);
    }

    long end;

    OutputChunk chunk(String s) {
        return bytes(s.getBytes(StandardCharsets.UTF_8));
    }

    OutputChunk bytes(byte[] b) {
        end += b.length;
        return OutputChunk.of(b, end);
    }

    @Test
    void whatTheSessionPrintedComesBackAsTheTailFromALineStartInAPrivateFile() throws Exception {
        Path file = JournalFormat.file(dir, "s1");
        JournalWriter w = writer(file, JournalFormat.DEFAULT_LIMIT_BYTES);
        for (int i = 1; i <= 100; i++) {
            w.onOutput(chunk("line " + i + "\r\n"));
        }
        w.close();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        JournalReader.Tail all = JournalReader.tail(file, 1 << 20);
        assertThat(all.warning()).isNull();
        assertThat(new String(all.data(), StandardCharsets.UTF_8)).startsWith("line 1\r\n").endsWith("line 100\r\n");
        String tail = new String(JournalReader.tail(file, 30).data(), StandardCharsets.UTF_8);
        assertThat(tail).isEqualTo("line 98\r\nline 99\r\nline 100\r\n");
        assertThat(warnings).isEmpty();
    }

    @Test
    void theJournalRotatesAndNeverHoldsMoreThanItsCap() throws Exception {
        Path file = JournalFormat.file(dir, "s1");
        long limit = JournalFormat.MIN_LIMIT_BYTES;
        JournalWriter w = writer(file, limit);
        byte[] block = "x".repeat(1000).getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 300; i++) {
            w.onOutput(bytes(block));
            if (i % 20 == 0) {
                w.flushForTest();
            }
        }
        w.onOutput(chunk("\r\nthe end\r\n"));
        w.close();
        assertThat(Files.exists(JournalFormat.previous(file))).isTrue();
        assertThat(Files.size(file) + Files.size(JournalFormat.previous(file))).isLessThanOrEqualTo(limit);
        assertThat(new String(JournalReader.tail(file, 100).data(), StandardCharsets.UTF_8)).endsWith("the end\r\n");
    }

    @Test
    void aJournalCutShortGivesNoHistoryAndAWarning() throws Exception {
        Path file = JournalFormat.file(dir, "s1");
        JournalWriter w = writer(file, JournalFormat.DEFAULT_LIMIT_BYTES);
        w.onOutput(chunk("hello\r\n"));
        w.close();
        byte[] whole = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(whole, whole.length - 3));
        JournalReader.Tail tail = JournalReader.tail(file, 1000);
        assertThat(tail.data()).isEmpty();
        assertThat(tail.warning()).contains("truncated").contains("without its history");
    }

    @Test
    void aCorruptJournalGivesNoHistoryAndAWarning() throws Exception {
        Path file = JournalFormat.file(dir, "s1");
        JournalWriter w = writer(file, JournalFormat.DEFAULT_LIMIT_BYTES);
        w.onOutput(chunk("hello\r\n"));
        w.close();
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - 2] ^= 0x55;
        Files.write(file, bytes);
        assertThat(JournalReader.tail(file, 1000).warning()).contains("checksum");
        Files.writeString(file, "not a journal at all");
        assertThat(JournalReader.tail(file, 1000).warning()).contains("corrupt");
    }

    @Test
    void theJournalIsNeverWrittenThroughASymbolicLink() throws Exception {
        Path target = dir.resolve("elsewhere");
        Files.writeString(target, "");
        Path file = JournalFormat.file(dir, "s1");
        Files.createSymbolicLink(file, target);
        JournalWriter w = writer(file, JournalFormat.DEFAULT_LIMIT_BYTES);
        w.onOutput(chunk("secret\r\n"));
        w.close();
        assertThat(Files.readString(target)).isEmpty();
        assertThat(warnings).singleElement().asString().contains("symbolic link");
        assertThat(JournalReader.tail(file, 100).warning()).contains("not a regular file");
    }

    @Test
    void noJournalMeansNoHistoryAndNoWarning() {
        JournalReader.Tail tail = JournalReader.tail(JournalFormat.file(dir, "none"), 100);
        assertThat(tail.data()).isEmpty();
        assertThat(tail.warning()).isNull();
    }
}
