package dev.limpet.daemon.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Versioned schema migrations, applied in order inside one transaction each. The applied version
 * lives in SQLite's {@code user_version}. Append new steps; never edit a released one.
 */
final class Migrations {
    /** Step N (1-based) brings the schema from version N-1 to N. */
    static final List<List<String>> STEPS = List.of(
            List.of("""
                    CREATE TABLE sessions (
                      id          TEXT PRIMARY KEY,
                      label       TEXT NOT NULL,
                      command     TEXT NOT NULL,
                      cwd         TEXT NOT NULL,
                      created_at  TEXT NOT NULL,
                      state       TEXT NOT NULL,
                      pid         INTEGER,
                      exit_code   INTEGER,
                      exit_signal TEXT
                    )""",
                    "CREATE INDEX sessions_label ON sessions(label)"),
            // 2: what it takes to start a session again after a reboot. The argv and the
            // launch cwd are the sessions row's command and cwd; never the full environment.
            List.of("""
                    CREATE TABLE launch_intent (
                      session_id        TEXT PRIMARY KEY,
                      last_cwd          TEXT,
                      env               TEXT NOT NULL DEFAULT '{}',
                      agent_kind        TEXT,
                      conversation_id   TEXT,
                      cols              INTEGER NOT NULL DEFAULT 80,
                      rows              INTEGER NOT NULL DEFAULT 24,
                      closed_on_purpose INTEGER NOT NULL DEFAULT 0,
                      journal           INTEGER NOT NULL DEFAULT 1,
                      reason            TEXT,
                      revived_at        TEXT
                    )"""),
            // 3: what the program is doing (dev.limpet.protocol.Activity), apart from the
            // runtime state. Rows that kept an activity in the state column (the rule before this
            // column existed) move it here and become running.
            List.of("ALTER TABLE sessions ADD COLUMN activity TEXT NOT NULL DEFAULT 'unknown'",
                    """
                    UPDATE sessions SET activity = state, state = 'running'
                     WHERE state IN ('waiting_input', 'pending_approval')"""));

    private Migrations() {}

    static int latest() {
        return STEPS.size();
    }

    /** Migrates {@code connection} to the latest version; returns the version it started from. */
    static int apply(Connection connection, List<List<String>> steps) throws SQLException {
        int current;
        try (Statement st = connection.createStatement(); var rs = st.executeQuery("PRAGMA user_version")) {
            current = rs.next() ? rs.getInt(1) : 0;
        }
        if (current > steps.size()) {
            throw new SQLException("the store has schema version " + current + " but this limpet knows only up to "
                    + steps.size() + " (was it written by a newer limpet?)");
        }
        for (int v = current; v < steps.size(); v++) {
            boolean auto = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try (Statement st = connection.createStatement()) {
                for (String sql : steps.get(v)) {
                    st.execute(sql);
                }
                st.execute("PRAGMA user_version = " + (v + 1));
                connection.commit();
            } catch (SQLException e) {
                connection.rollback();
                throw new SQLException("migration to schema version " + (v + 1) + " failed: " + e.getMessage(), e);
            } finally {
                connection.setAutoCommit(auto);
            }
        }
        return current;
    }
}
