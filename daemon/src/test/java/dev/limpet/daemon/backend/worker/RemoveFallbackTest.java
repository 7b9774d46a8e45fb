package dev.limpet.daemon.backend.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.workerapi.registry.WorkerPaths;
import dev.limpet.workerapi.registry.WorkerRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A remove the worker did not answer: what is killed (the worker alone serving the session; for a
 * dense host only the session's own child; never a pid that is no pty-worker) and that the
 * session's registry entry goes either way. The OS is faked: the kills are recorded, not made.
 */
class RemoveFallbackTest {
    static final String ID = "s-remove";
    static final long WORKER = 4100;
    static final long HOST = 4200;
    static final long CHILD = 4300;
    static final long STRANGER = 4400;

    @TempDir
    Path tmp;
    WorkerRegistry registry;
    final Os os = new Os();

    /** Pids alive, which are workers or dense hosts, their parents; kills recorded. */
    static final class Os implements WorkerOs {
        final Set<Long> workers = new HashSet<>();
        final Set<Long> hosts = new HashSet<>();
        final Set<Long> alive = new HashSet<>();
        final Map<Long, Long> parents = new HashMap<>();
        final List<Long> killed = new ArrayList<>();

        @Override
        public boolean isAlive(long pid) {
            return alive.contains(pid);
        }

        @Override
        public boolean isWorker(long pid) {
            return workers.contains(pid) || hosts.contains(pid);
        }

        @Override
        public boolean isDenseHost(long pid) {
            return hosts.contains(pid);
        }

        @Override
        public OptionalLong parent(long pid) {
            Long p = parents.get(pid);
            return p == null ? OptionalLong.empty() : OptionalLong.of(p);
        }

        @Override
        public void kill(long pid) {
            killed.add(pid);
        }

        @Override
        public Optional<Instant> startTime(long pid) {
            return Optional.empty();
        }

        @Override
        public boolean exists(Path file) {
            return Files.exists(file);
        }

        @Override
        public WorkerLink connect(Path socket) throws IOException {
            throw new IOException("Connection refused");
        }
    }

    @BeforeEach
    void setUp() throws IOException {
        registry = new WorkerRegistry(new WorkerPaths(tmp.resolve("workers")));
        registry.ensureDirectories();
        Files.writeString(registry.paths().registry(ID), "{}");
    }

    void remove(long workerPid, long childPid) {
        new RemoveFallback(registry, os).run(ID, workerPid, childPid, registry.paths().socket(ID));
    }

    @Test
    void aWorkerThatServesOnlyThisSessionIsKilledAndItsEntryPruned() {
        os.alive.add(WORKER);
        os.workers.add(WORKER);
        remove(WORKER, CHILD);
        assertThat(os.killed).containsExactly(WORKER);
        assertThat(registry.paths().registry(ID)).doesNotExist();
    }

    @Test
    void aDenseHostIsNeverKilledOnlyTheSessionsOwnChild() {
        os.alive.addAll(List.of(HOST, CHILD));
        os.hosts.add(HOST);
        os.parents.put(CHILD, HOST);
        remove(HOST, CHILD);
        assertThat(os.killed).containsExactly(CHILD);
        assertThat(registry.paths().registry(ID)).doesNotExist();
    }

    @Test
    void aChildThatIsNoLongerTheHostsIsLeftAlone() {
        os.alive.addAll(List.of(HOST, CHILD));
        os.hosts.add(HOST);
        os.parents.put(CHILD, STRANGER); // the pid was reused by someone else's process
        remove(HOST, CHILD);
        assertThat(os.killed).isEmpty();
        assertThat(registry.paths().registry(ID)).doesNotExist();
    }

    @Test
    void aPidThatIsNoPtyWorkerIsNeverKilled() {
        os.alive.add(STRANGER);
        remove(STRANGER, CHILD);
        assertThat(os.killed).isEmpty();
        assertThat(registry.paths().registry(ID)).doesNotExist();
    }

    @Test
    void aWorkerAlreadyGoneLeavesOnlyItsEntryToPrune() {
        os.workers.add(WORKER);
        remove(WORKER, CHILD);
        assertThat(os.killed).isEmpty();
        assertThat(registry.paths().registry(ID)).doesNotExist();
    }
}
