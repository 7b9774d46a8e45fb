package dev.limpet.daemon.store;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.limpet.protocol.Activity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQLite store of session metadata ({@code <data_root>/limpet.db}, WAL). Thread-safe: one
 * connection, calls serialised. Never falls back to memory: a store that cannot be opened or
 * migrated stops the daemon with a {@link StoreException} naming the file and the remedy.
 */
public final class SessionStore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SessionStore.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Connection connection;

    private SessionStore(Connection connection) {
        this.connection = connection;
    }

    public static SessionStore open(Path file) {
        return open(file, Migrations.STEPS);
    }

    static SessionStore open(Path file, List<List<String>> steps) {
        Connection c = null;
        try {
            // SQLite gives its -wal and -shm files the main file's mode: create it private first.
            if (!Files.exists(file)) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(
                        dev.limpet.terminal.os.PrivateFiles.FILE_0600));
            }
            c = DriverManager.getConnection("jdbc:sqlite:" + file);
            try (var st = c.createStatement()) {
                st.execute("PRAGMA journal_mode=WAL");
                st.execute("PRAGMA synchronous=NORMAL");
                st.execute("PRAGMA busy_timeout=5000");
            }
            int from = Migrations.apply(c, steps);
            if (from != steps.size()) {
                LOG.info("store {} migrated from schema version {} to {}", file, from, steps.size());
            }
            for (String suffix : List.of("", "-wal", "-shm")) {
                Path f = Path.of(file + suffix);
                if (Files.exists(f)) {
                    Files.setPosixFilePermissions(f, dev.limpet.terminal.os.PrivateFiles.FILE_0600);
                }
            }
            return new SessionStore(c);
        } catch (SQLException | IOException e) {
            closeQuietly(c);
            throw new StoreException("cannot open the session store " + file + ": " + e.getMessage()
                    + ". limpet does not run without its store. Move the file aside (mv " + file + " " + file
                    + ".broken) to start with an empty one, or restore it from a backup.", e);
        }
    }

    public synchronized void insert(StoredSession s) {
        run("INSERT INTO sessions(id,label,command,cwd,created_at,state,pid,exit_code,exit_signal,activity) VALUES(?,?,?,?,?,?,?,?,?,?)",
                ps -> {
                    ps.setString(1, s.id());
                    ps.setString(2, s.label());
                    ps.setString(3, JSON.writeValueAsString(s.command()));
                    ps.setString(4, s.cwd());
                    ps.setString(5, s.createdAt().toString());
                    bindRuntime(ps, 6, s);
                });
    }

    /** Inserts or replaces the whole row. */
    public synchronized void upsert(StoredSession s) {
        run("INSERT OR REPLACE INTO sessions(id,label,command,cwd,created_at,state,pid,exit_code,exit_signal,activity) VALUES(?,?,?,?,?,?,?,?,?,?)",
                ps -> {
                    ps.setString(1, s.id());
                    ps.setString(2, s.label());
                    ps.setString(3, JSON.writeValueAsString(s.command()));
                    ps.setString(4, s.cwd());
                    ps.setString(5, s.createdAt().toString());
                    bindRuntime(ps, 6, s);
                });
    }

    public synchronized void updateRuntime(String id, String state, Long pid, Integer exitCode, String exitSignal) {
        run("UPDATE sessions SET state=?, pid=?, exit_code=?, exit_signal=? WHERE id=?", ps -> {
            ps.setString(1, state);
            setNullable(ps, 2, pid);
            setNullable(ps, 3, exitCode == null ? null : exitCode.longValue());
            ps.setString(4, exitSignal);
            ps.setString(5, id);
        });
    }

    /** Records what the program in session {@code id} is doing. */
    public synchronized void updateActivity(String id, Activity activity) {
        run("UPDATE sessions SET activity=? WHERE id=?", ps -> {
            ps.setString(1, activity.wireName());
            ps.setString(2, id);
        });
    }

    public synchronized void rename(String id, String label) {
        run("UPDATE sessions SET label=? WHERE id=?", ps -> {
            ps.setString(1, label);
            ps.setString(2, id);
        });
    }

    public synchronized void delete(String id) {
        run("DELETE FROM launch_intent WHERE session_id=?", ps -> ps.setString(1, id));
        run("DELETE FROM sessions WHERE id=?", ps -> ps.setString(1, id));
    }

    /** Inserts or replaces a session's launch intent. */
    public synchronized void saveIntent(LaunchIntent i) {
        run("INSERT OR REPLACE INTO launch_intent(session_id,last_cwd,env,agent_kind,conversation_id,cols,rows,closed_on_purpose,journal,"
                + "reason,revived_at) VALUES(?,?,?,?,?,?,?,?,?,?,?)", ps -> {
                    ps.setString(1, i.sessionId());
                    ps.setString(2, i.lastCwd());
                    ps.setString(3, JSON.writeValueAsString(i.env()));
                    ps.setString(4, i.agentKind());
                    ps.setString(5, i.conversationId());
                    ps.setInt(6, i.cols());
                    ps.setInt(7, i.rows());
                    ps.setInt(8, i.closedOnPurpose() ? 1 : 0);
                    ps.setInt(9, i.journal() ? 1 : 0);
                    ps.setString(10, i.reason());
                    ps.setString(11, i.revivedAt() == null ? null : i.revivedAt().toString());
                });
    }

    /** A session's launch intent; {@link LaunchIntent#unknown} for a session stored before intents existed. */
    public synchronized LaunchIntent intent(String id) {
        try (PreparedStatement ps = connection.prepareStatement("SELECT * FROM launch_intent WHERE session_id=?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return LaunchIntent.unknown(id);
                }
                String revived = rs.getString("revived_at");
                return new LaunchIntent(id, rs.getString("last_cwd"),
                        JSON.readValue(rs.getString("env"), new TypeReference<Map<String, String>>() {}),
                        rs.getString("agent_kind"), rs.getString("conversation_id"), rs.getInt("cols"), rs.getInt("rows"),
                        rs.getInt("closed_on_purpose") != 0, rs.getInt("journal") != 0, rs.getString("reason"),
                        revived == null ? null : Instant.parse(revived));
            }
        } catch (Exception e) {
            throw new StoreException("session store read failed: " + e.getMessage(), e);
        }
    }

    public synchronized Optional<StoredSession> find(String id) {
        List<StoredSession> found = query("SELECT * FROM sessions WHERE id=?", ps -> ps.setString(1, id));
        return found.stream().findFirst();
    }

    public synchronized List<StoredSession> list() {
        return query("SELECT * FROM sessions ORDER BY created_at, id", ps -> {});
    }

    @Override
    public synchronized void close() {
        closeQuietly(connection);
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws Exception;
    }

    private void run(String sql, Binder binder) {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            binder.bind(ps);
            ps.executeUpdate();
        } catch (Exception e) {
            throw new StoreException("session store write failed: " + e.getMessage(), e);
        }
    }

    private List<StoredSession> query(String sql, Binder binder) {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                List<StoredSession> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(read(rs));
                }
                return out;
            }
        } catch (Exception e) {
            throw new StoreException("session store read failed: " + e.getMessage(), e);
        }
    }

    private static StoredSession read(ResultSet rs) throws Exception {
        long pid = rs.getLong("pid");
        Long pidValue = rs.wasNull() ? null : pid;
        int exit = rs.getInt("exit_code");
        Integer exitValue = rs.wasNull() ? null : exit;
        return new StoredSession(rs.getString("id"), rs.getString("label"),
                JSON.readValue(rs.getString("command"), new TypeReference<List<String>>() {}),
                rs.getString("cwd"), Instant.parse(rs.getString("created_at")), rs.getString("state"),
                pidValue, exitValue, rs.getString("exit_signal"),
                // A name this limpet does not know (written by a newer one) reads as unknown.
                Activity.parse(rs.getString("activity")).orElse(Activity.UNKNOWN));
    }

    private static void bindRuntime(PreparedStatement ps, int first, StoredSession s) throws SQLException {
        ps.setString(first, s.state());
        setNullable(ps, first + 1, s.pid());
        setNullable(ps, first + 2, s.exitCode() == null ? null : s.exitCode().longValue());
        ps.setString(first + 3, s.exitSignal());
        ps.setString(first + 4, s.activity().wireName());
    }

    private static void setNullable(PreparedStatement ps, int index, Long value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.INTEGER);
        } else {
            ps.setLong(index, value);
        }
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // nothing more to do with a connection we are abandoning
            }
        }
    }
}
