package dev.limpet.daemon.backend.tmux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.testkit.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointFileTest {
    @TempDir
    Path dir;
    final ManualClock clock = new ManualClock(Instant.parse("2026-11-26T10:00:00Z"));

    static Checkpoint.Entry entry(String id) {
        return new Checkpoint.Entry(id, TmuxIds.forSession(id), "/home/me/src", "src", List.of("claude", "--continue"),
                Instant.parse("2026-11-26T09:00:00Z"), Instant.parse("2026-11-26T09:59:30Z"));
    }

    @Test
    void whatIsSavedIsLoadedBackFromAPrivateFile() throws Exception {
        CheckpointFile f = new CheckpointFile(dir, clock);
        f.save(List.of(entry("s-1"), entry("s-2")));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f.path()))).isEqualTo("rw-------");
        assertThat(Files.readString(f.path())).contains("\"version\" : 1").contains("\"tmux_name\"").contains("\"last_known_alive\"");
        CheckpointFile.Loaded l = f.load();
        assertThat(l.outcome()).isEqualTo(CheckpointFile.Outcome.LOADED);
        assertThat(l.problem()).isNull();
        assertThat(l.entries()).containsExactly(entry("s-1"), entry("s-2"));
    }

    @Test
    void noFileIsMissingWithoutAProblem() {
        CheckpointFile.Loaded l = new CheckpointFile(dir, clock).load();
        assertThat(l.outcome()).isEqualTo(CheckpointFile.Outcome.MISSING);
        assertThat(l.problem()).isNull();
        assertThat(l.entries()).isEmpty();
    }

    @Test
    void aCheckpointOlderThanAWeekIsStaleAndItsEntriesAreNotUsed() throws Exception {
        CheckpointFile f = new CheckpointFile(dir, clock);
        f.save(List.of(entry("s-1")));
        clock.advance(Duration.ofDays(7).plusMinutes(1));
        CheckpointFile.Loaded l = f.load();
        assertThat(l.outcome()).isEqualTo(CheckpointFile.Outcome.STALE);
        assertThat(l.entries()).isEmpty();
        assertThat(l.problem()).contains("more than 7 days ago");
    }

    @Test
    void aCheckpointSixDaysOldIsStillUsed() throws Exception {
        CheckpointFile f = new CheckpointFile(dir, clock);
        f.save(List.of(entry("s-1")));
        clock.advance(Duration.ofDays(6));
        assertThat(f.load().entries()).hasSize(1);
    }

    @Test
    void aCorruptCheckpointIsMovedAsideWithAProblemAndNothingIsUsed() throws Exception {
        Files.writeString(dir.resolve(CheckpointFile.NAME), "{\"version\": 1, \"sessions\": [ {");
        CheckpointFile.Loaded l = new CheckpointFile(dir, clock).load();
        assertThat(l.outcome()).isEqualTo(CheckpointFile.Outcome.CORRUPT);
        assertThat(l.entries()).isEmpty();
        assertThat(l.problem()).contains("is not JSON").contains("moved aside");
        assertThat(dir.resolve(CheckpointFile.NAME)).doesNotExist();
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("checkpoint.json.bad-"));
        }
    }

    @Test
    void jsonWithoutVersionOrSessionsIsCorrupt() throws Exception {
        Files.writeString(dir.resolve(CheckpointFile.NAME), "[1, 2]");
        assertThat(new CheckpointFile(dir, clock).load().outcome()).isEqualTo(CheckpointFile.Outcome.CORRUPT);
        Files.writeString(dir.resolve(CheckpointFile.NAME), "{\"version\": 1, \"sessions\": []}");
        assertThat(new CheckpointFile(dir, clock).load().problem()).contains("no valid timestamp");
    }

    @Test
    void aCheckpointOfAnotherVersionIsForeignAndMovedAside() throws Exception {
        Files.writeString(dir.resolve(CheckpointFile.NAME), "{\"version\": 3, \"timestamp\": \"2026-11-26T09:00:00Z\", \"sessions\": []}");
        CheckpointFile.Loaded l = new CheckpointFile(dir, clock).load();
        assertThat(l.outcome()).isEqualTo(CheckpointFile.Outcome.FOREIGN);
        assertThat(l.problem()).contains("version 3").contains("reads version 1");
    }

    @Test
    void aCheckpointThatIsASymbolicLinkIsNotFollowed() throws Exception {
        Path elsewhere = dir.resolve("elsewhere.json");
        new CheckpointFile(dir, clock).save(List.of(entry("s-1")));
        Files.move(dir.resolve(CheckpointFile.NAME), elsewhere);
        Files.createSymbolicLink(dir.resolve(CheckpointFile.NAME), elsewhere);
        CheckpointFile.Loaded l = new CheckpointFile(dir, clock).load();
        assertThat(l.outcome()).isEqualTo(CheckpointFile.Outcome.FOREIGN);
        assertThat(l.entries()).isEmpty();
        assertThat(l.problem()).contains("symbolic link");
    }

    @Test
    void entriesWithInvalidOrMismatchedIdsAreSkippedAndNamedForKilling() throws Exception {
        Files.writeString(dir.resolve(CheckpointFile.NAME), """
                {"version": 1, "timestamp": "2026-11-26T09:00:00Z", "sessions": [
                  {"session_id": "s-1", "tmux_name": "%s"},
                  {"session_id": "s-2", "tmux_name": "limpet--0000000000000000"},
                  {"session_id": "../etc", "tmux_name": "limpet--1111111111111111"},
                  {"session_id": "s-3", "tmux_name": "work"},
                  {"tmux_name": 7}
                ]}""".formatted(TmuxIds.forSession("s-1")));
        CheckpointFile.Loaded l = new CheckpointFile(dir, clock).load();
        assertThat(l.outcome()).isEqualTo(CheckpointFile.Outcome.LOADED);
        assertThat(l.entries()).extracting(Checkpoint.Entry::sessionId).containsExactly("s-1");
        assertThat(l.rejected()).containsExactly("limpet--0000000000000000", "limpet--1111111111111111", "work", "7");
        assertThat(l.problem()).contains("4 entries");
    }
}
