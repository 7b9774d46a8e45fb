package dev.limpet.daemon.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.Activity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.DriverManager;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionStoreTest {
    @TempDir
    Path dir;

    private static StoredSession session(String id) {
        return new StoredSession(id, "label " + id, List.of("bash", "-l"), "/tmp", Instant.parse("2026-11-25T22:00:00Z"),
                "running", 42L, null, null);
    }

    @Test
    void aFreshStoreIsMigratedToTheLatestVersionAndPrivate() throws Exception {
        Path db = dir.resolve("limpet.db");
        try (SessionStore store = SessionStore.open(db)) {
            assertThat(store.list()).isEmpty();
        }
        try (var c = DriverManager.getConnection("jdbc:sqlite:" + db); var rs = c.createStatement().executeQuery("PRAGMA user_version")) {
            assertThat(rs.getInt(1)).isEqualTo(Migrations.latest());
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(db))).isEqualTo("rw-------");
    }

    @Test
    void rowsSurviveReopeningAndUpdatesApply() {
        Path db = dir.resolve("limpet.db");
        try (SessionStore store = SessionStore.open(db)) {
            store.insert(session("a1"));
            store.insert(session("b2"));
            store.rename("a1", "renamed");
            store.updateRuntime("b2", "exited", 42L, 3, null);
            store.delete("zz");
        }
        try (SessionStore store = SessionStore.open(db)) {
            assertThat(store.find("a1").orElseThrow().label()).isEqualTo("renamed");
            StoredSession b = store.find("b2").orElseThrow();
            assertThat(b.state()).isEqualTo("exited");
            assertThat(b.exitCode()).isEqualTo(3);
            assertThat(b.command()).containsExactly("bash", "-l");
            store.delete("a1");
            assertThat(store.list()).extracting(StoredSession::id).containsExactly("b2");
        }
    }

    @Test
    void anActivityIsStoredUpdatedAndSurvivesReopening() {
        Path db = dir.resolve("limpet.db");
        try (SessionStore store = SessionStore.open(db)) {
            store.insert(session("a1"));
            assertThat(store.find("a1").orElseThrow().activity()).isEqualTo(Activity.UNKNOWN);
            store.updateActivity("a1", Activity.PENDING_APPROVAL);
            store.rename("a1", "renamed");
        }
        try (SessionStore store = SessionStore.open(db)) {
            StoredSession a = store.find("a1").orElseThrow();
            assertThat(a.activity()).isEqualTo(Activity.PENDING_APPROVAL);
            assertThat(a.withLabel("x").withState("exited", null, 0, null).activity()).isEqualTo(Activity.PENDING_APPROVAL);
        }
    }

    @Test
    void migrationThreeMovesAnActivityKeptInTheStateColumnIntoItsOwnColumn() throws Exception {
        Path db = dir.resolve("limpet.db");
        try (SessionStore store = SessionStore.open(db, Migrations.STEPS.subList(0, 2))) {
            assertThat(store.list()).isEmpty();
        }
        try (var c = DriverManager.getConnection("jdbc:sqlite:" + db); var st = c.createStatement()) {
            for (String[] r : new String[][] {{"w", "waiting_input"}, {"p", "pending_approval"}, {"r", "running"}, {"e", "exited"}}) {
                st.execute("INSERT INTO sessions(id,label,command,cwd,created_at,state) VALUES('" + r[0] + "','l','[]','/',"
                        + "'2026-11-25T22:00:00Z','" + r[1] + "')");
            }
        }
        try (SessionStore store = SessionStore.open(db)) {
            assertThat(store.find("w").orElseThrow()).extracting(StoredSession::state, StoredSession::activity)
                    .containsExactly("running", Activity.WAITING_INPUT);
            assertThat(store.find("p").orElseThrow()).extracting(StoredSession::state, StoredSession::activity)
                    .containsExactly("running", Activity.PENDING_APPROVAL);
            assertThat(store.find("r").orElseThrow()).extracting(StoredSession::state, StoredSession::activity)
                    .containsExactly("running", Activity.UNKNOWN);
            assertThat(store.find("e").orElseThrow()).extracting(StoredSession::state, StoredSession::activity)
                    .containsExactly("exited", Activity.UNKNOWN);
        }
    }

    @Test
    void anActivityNameThisLimpetDoesNotKnowReadsAsUnknown() throws Exception {
        Path db = dir.resolve("limpet.db");
        try (SessionStore store = SessionStore.open(db)) {
            store.insert(session("a1"));
        }
        try (var c = DriverManager.getConnection("jdbc:sqlite:" + db); var st = c.createStatement()) {
            st.execute("UPDATE sessions SET activity='compacting' WHERE id='a1'");
        }
        try (SessionStore store = SessionStore.open(db)) {
            assertThat(store.find("a1").orElseThrow().activity()).isEqualTo(Activity.UNKNOWN);
        }
    }

    @Test
    void aLaterMigrationAppliesOnTopOfAnOlderStore() {
        Path db = dir.resolve("limpet.db");
        try (SessionStore store = SessionStore.open(db, Migrations.STEPS)) {
            store.insert(session("a1"));
        }
        List<List<String>> withNext = new ArrayList<>(Migrations.STEPS);
        withNext.add(List.of("ALTER TABLE sessions ADD COLUMN note TEXT"));
        try (SessionStore store = SessionStore.open(db, withNext)) {
            assertThat(store.find("a1")).isPresent();
        }
    }

    @Test
    void aFailingMigrationStopsWithThePathTheErrorAndTheRemedy() {
        Path db = dir.resolve("limpet.db");
        List<List<String>> broken = List.of(List.of("CREATE TABLE sessions (id TEXT)", "THIS IS NOT SQL"));
        assertThatThrownBy(() -> SessionStore.open(db, broken))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(db.toString())
                .hasMessageContaining("migration to schema version 1 failed")
                .hasMessageContaining("Move the file aside");
        // The failed step was rolled back: a correct run afterwards starts from version 0 again.
        try (SessionStore store = SessionStore.open(db)) {
            assertThat(store.list()).isEmpty();
        }
    }

    @Test
    void aStoreFromANewerLimpetIsRefused() {
        Path db = dir.resolve("limpet.db");
        List<List<String>> newer = new ArrayList<>(Migrations.STEPS);
        newer.add(List.of("CREATE TABLE future (x INTEGER)"));
        SessionStore.open(db, newer).close();
        assertThatThrownBy(() -> SessionStore.open(db))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("newer limpet");
    }

    @Test
    void aFileThatIsNotADatabaseIsReportedNotReplaced() throws Exception {
        Path db = dir.resolve("limpet.db");
        Files.writeString(db, "this is not sqlite, but someone's data".repeat(200));
        assertThatThrownBy(() -> SessionStore.open(db)).isInstanceOf(StoreException.class).hasMessageContaining(db.toString());
        assertThat(Files.readString(db)).startsWith("this is not sqlite");
    }
}
