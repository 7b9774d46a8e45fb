package dev.limpet.bench.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.limpet.bench.client.WsClient;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.proc.LimpetJar;
import dev.limpet.bench.proc.LimpetRelay;
import dev.limpet.bench.proc.Pss;
import dev.limpet.bench.proc.Reaper;
import dev.limpet.bench.report.BenchmarkDoc;
import dev.limpet.bench.report.MachineInfo;
import dev.limpet.testkit.NatsServer;
import dev.limpet.testkit.SoakStream;
import dev.limpet.testkit.SoakWriter;
import dev.limpet.testkit.TestPrograms;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * {@code ./limpet soak --minutes N [--seed S]}: sessions writing at mixed rates on the worker
 * backend, WebSocket clients attached to every one of them in both flow modes (one client of each
 * mode through a two-node relay cluster on NATS, end to end encrypted, landing on either node),
 * and a seeded chaos loop that {@code kill -9}s the daemon (restarted on the same data root), random
 * workers, clients, relay nodes and NATS (each started again on the same port). At the end: every session whose worker was not killed runs with the pid it started with;
 * every lossless client has every byte its program wrote, exactly once; sessions of killed workers
 * are {@code exited} or {@code recoverable}; daemon and worker memory stayed under the bounds below.
 * Prints a table, records it in docs/reliability.md, exits 1 on any loss, hang or broken bound.
 */
public final class SoakMain {
    /** Bounds on PSS, checked at every sample (a flooding worker's ring and screen model included). */
    static final long DAEMON_PSS_BOUND_KB = 512 * 1024;
    /**
     * A worker host: the JVM's own (64 MB, with room) and, for each of the 16 sessions a host
     * serves by default, its 4 MiB ring and ~1 MiB screen model, which a host holds all at once
     * when every session has printed a ring's worth (the soak's bursts get close in minutes).
     */
    static final long WORKER_PSS_BOUND_KB = (64 + 16 * 5) * 1024;
    /** How long the end of the run waits for lossless clients to catch up before calling it a hang. */
    static final Duration CATCH_UP = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Options options;
    private final Path scratch;
    private final Path root;
    private final Random chaos;
    private final List<SoakSession> sessions = new ArrayList<>();
    private final List<SoakConnection> connections = new ArrayList<>();
    private volatile LimpetDaemon daemon;
    private Path jar;
    /** The relay cluster: NATS and two nodes on fixed ports (a killed one comes back at the same address). */
    private NatsServer nats;
    private final LimpetRelay[] nodes = new LimpetRelay[2];
    private final int[] nodePorts = new int[2];
    private Path relayDir;
    private volatile String pairingLink;
    private int relayKills;
    private int natsKills;
    private int daemonKills;
    private int workerKills;
    private int clientKills;
    private int cycles;
    private long daemonPeakKb;
    private long workerPeakKb;
    private long totalPeakKb;
    private final List<String> failures = new ArrayList<>();
    /** kill -9 of the daemon → a new one's initial_state, per restart. */
    private final List<Long> restartMillis = new ArrayList<>();
    private volatile boolean clientsRunning = true;

    /** {@code isolated}: the daemon runs {@code --worker-mode isolated} (a worker process per session) instead of the default dense hosts. */
    record Options(double minutes, long seed, int sessions, Path repo, boolean doc, boolean isolated) {
        static Options parse(String[] args) {
            double minutes = 3;
            long seed = System.nanoTime() & 0xffffff;
            int sessions = 25;
            Path repo = Path.of(".");
            boolean doc = true;
            boolean isolated = false;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--minutes" -> minutes = Double.parseDouble(args[++i]);
                    case "--seed" -> seed = Long.parseLong(args[++i]);
                    case "--sessions" -> sessions = Integer.parseInt(args[++i]);
                    case "--repo" -> repo = Path.of(args[++i]);
                    case "--no-doc" -> doc = false;
                    case "--isolated" -> isolated = true;
                    default -> throw new IllegalArgumentException("unknown option " + args[i]
                            + " (usage: ./limpet soak [--minutes N] [--seed S] [--sessions N] [--isolated] [--no-doc])");
                }
            }
            return new Options(minutes, seed, sessions, repo.toAbsolutePath().normalize(), doc, isolated);
        }
    }

    private SoakMain(Options options, Path scratch) {
        this.options = options;
        this.scratch = scratch;
        this.root = scratch.resolve("root");
        this.chaos = new Random(options.seed());
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        Path scratch = Files.createTempDirectory("limpet-soak-");
        Reaper.sweepOnExit(scratch.toString());
        int rc;
        try {
            rc = new SoakMain(options, scratch).run();
        } finally {
            Reaper.reapEverything();
            Reaper.sweep(scratch.toString(), List.of());
            keepLogs(scratch, options.repo().resolve("bench/target/soak-logs"));
            try (Stream<Path> walk = Files.walk(scratch)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        System.exit(rc);
    }

    /** The daemons' logs (one per restart) and the workers' logs, kept for a look after the run: the scratch directory goes. */
    private static void keepLogs(Path scratch, Path dir) {
        try (Stream<Path> walk = Files.walk(scratch)) {
            List<Path> logs = walk.filter(p -> p.toString().endsWith(".log") && Files.isRegularFile(p)).toList();
            if (logs.isEmpty()) {
                return;
            }
            if (Files.exists(dir)) {
                try (Stream<Path> old = Files.list(dir)) {
                    old.forEach(p -> p.toFile().delete());
                }
            }
            Files.createDirectories(dir);
            for (Path p : logs) {
                String name = p.getParent().getFileName() + "-" + p.getFileName();
                Files.copy(p, dir.resolve(p.getParent().equals(scratch) ? p.getFileName().toString() : name));
            }
            log("daemon and worker logs kept in " + dir);
        } catch (IOException e) {
            log("could not keep the logs: " + e);
        }
    }

    private static void log(String s) {
        System.err.println("soak: " + s);
    }

    int run() throws Exception {
        String loadBefore = MachineInfo.load();
        ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
        log("seed " + options.seed() + ", " + options.sessions() + " sessions, " + options.minutes() + " min; load " + loadBefore);
        jar = LimpetJar.privateCopy(options.repo().resolve("app/target/limpet.jar"), scratch);
        startRelayCluster();
        daemon = startDaemon();
        pairingLink = nodes[0].pair(root);
        if (!"worker".equals(daemon.backend())) {
            throw new IllegalStateException("the daemon runs the " + daemon.backend() + " backend; the soak needs workers");
        }
        for (int i = 0; i < 5; i++) {
            boolean relayed = i == 4;
            String via = relayed ? "relayed-" : "";
            connections.add(new SoakConnection(via + "lossless-" + i, true, relayed, options.seed()));
            connections.add(new SoakConnection(via + "live-" + i, false, relayed, options.seed()));
        }
        List<Thread> clients = connections.stream()
                .map(c -> Thread.ofPlatform().daemon().name("soak-" + c.name).start(() -> clientLoop(c))).toList();
        spawnSessions();
        long setupDone = System.nanoTime();
        log("sessions running; chaos for " + options.minutes() + " min");
        long end = setupDone + (long) (options.minutes() * 60e9);
        long nextSample = 0;
        while (System.nanoTime() < end) {
            Thread.sleep(Math.min(1000 + chaos.nextInt(4000), Math.max(1, (end - System.nanoTime()) / 1_000_000)));
            if (System.nanoTime() >= end) {
                break;
            }
            chaosStep();
            if (System.nanoTime() > nextSample) {
                sampleMemory();
                nextSample = System.nanoTime() + 5_000_000_000L;
            }
        }
        log("chaos over after " + cycles + " cycles; settling");
        ensureDaemon();
        settle();
        sampleMemory();
        clientsRunning = false;
        for (Thread t : clients) {
            t.join(5000);
        }
        finalChecks();
        String table = table(started, loadBefore, (System.nanoTime() - setupDone) / 60e9);
        System.out.println();
        System.out.print(table);
        failures.forEach(f -> System.out.println("FAILED: " + f));
        if (options.doc()) {
            Path doc = options.repo().resolve("docs/reliability.md");
            String existing = Files.exists(doc) ? Files.readString(doc) : null;
            Files.writeString(doc, BenchmarkDoc.merge(existing, table, BEGIN, END, "# Reliability\n\n", "\n"));
            log("recorded in " + doc);
        }
        connections.forEach(SoakConnection::close);
        daemon.stop();
        for (LimpetRelay n : nodes) {
            n.close();
        }
        nats.close();
        return failures.isEmpty() ? 0 : 1;
    }

    /** NATS and two relay nodes on it (loopback, a NATS of the soak's own: --insecure-nats), the daemon enrolled. */
    private void startRelayCluster() throws Exception {
        relayDir = scratch.resolve("relay-cluster");
        nats = NatsServer.start(scratch.resolve("nats"));
        for (int i = 0; i < nodes.length; i++) {
            try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                nodePorts[i] = free.getLocalPort();
            }
            nodes[i] = startNode(i);
        }
        nodes[0].enrol(root);
    }

    private LimpetRelay startNode(int i) throws Exception {
        return LimpetRelay.start(jar, relayDir, "node" + (i + 1) + "-" + System.nanoTime() + ".log", nodePorts[i], "--nats", nats.url(),
                "--insecure-nats");
    }

    /** The pairing link through a node chosen at random: a relayed client lands on either, wherever the daemon's uplink is. */
    private String relayLink() {
        String link = pairingLink;
        // not the chaos loop's Random: client threads call this at their own pace, and the seed must replay the same chaos
        int n = ThreadLocalRandom.current().nextInt(nodes.length);
        return link.replace(nodes[0].url, "http://127.0.0.1:" + nodePorts[n] + "/");
    }

    static final String BEGIN = "<!-- soak:generated:begin (written by ./limpet soak; edits here are lost) -->";
    static final String END = "<!-- soak:generated:end -->";

    private LimpetDaemon startDaemon() throws IOException {
        // Lossless clients may be away for a daemon restart: the default ack timeout (10 s) is what users get.
        List<String> args = new ArrayList<>(List.of("--relay",
                "http://127.0.0.1:" + nodePorts[0] + "/,http://127.0.0.1:" + nodePorts[1] + "/"));
        if (options.isolated()) {
            args.addAll(List.of("--worker-mode", "isolated"));
        }
        return LimpetDaemon.start(jar, root, "worker", List.of(), Map.of(), args);
    }

    private String wsUrl() {
        return daemon.wsUrl();
    }

    /** Keeps one client connected and attached, all the time, on a thread of its own (as separate clients are). */
    private void clientLoop(SoakConnection c) {
        while (clientsRunning) {
            c.maintain(c.relayed ? this::relayLink : this::wsUrl);
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void spawnSessions() throws Exception {
        SoakStream.Kind[] kinds = SoakStream.Kind.values();
        try (WsClient control = WsClient.connect(wsUrl())) {
            for (int i = 0; i < options.sessions(); i++) {
                SoakStream.Kind kind = kinds[i % kinds.length];
                long seed = options.seed() * 1000 + i;
                List<String> argv = TestPrograms.command(SoakWriter.class, kind.name().toLowerCase(Locale.ROOT), Long.toString(seed));
                JsonNode info = control.spawn(argv, 80, 24);
                SoakSession s = new SoakSession(info.path("id").asText(), kind, seed, info.path("pid").asLong());
                sessions.add(s);
                // Attached at once (a burst program could overrun the ring before a late lossless client).
                connections.get(2 * (i % 5)).add(s);
                connections.get(2 * (i % 5) + 1).add(s);
            }
        }
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!connections.stream().allMatch(SoakConnection::settled) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
    }

    private void chaosStep() throws Exception {
        cycles++;
        int roll = chaos.nextInt(100);
        if (roll < 20) {
            daemonKills++;
            log("cycle " + cycles + ": kill -9 daemon " + daemon.pid());
            daemon.kill9();
            long killed = System.nanoTime();
            Thread.sleep(chaos.nextInt(2000));
            daemon = startDaemon();
            long listening = System.nanoTime();
            try (WsClient probe = WsClient.connect(wsUrl())) {
                // initial_state comes once recovery is done
            } catch (IOException e) {
                log("cycle " + cycles + ": no initial_state from the new daemon: " + e.getMessage());
            }
            long recovered = System.nanoTime();
            restartMillis.add((recovered - killed) / 1_000_000);
            log(String.format("cycle %d: daemon back: listening %.1f s, initial_state %.1f s after the kill", cycles,
                    (listening - killed) / 1e9, (recovered - killed) / 1e9));
        } else if (roll < 30) {
            int n = chaos.nextInt(nodes.length);
            relayKills++;
            log("cycle " + cycles + ": kill -9 relay node " + (n + 1));
            nodes[n].kill9();
            Thread.sleep(chaos.nextInt(2000));
            nodes[n] = startNode(n);
        } else if (roll < 35) {
            natsKills++;
            log("cycle " + cycles + ": kill -9 NATS");
            nats.kill9();
            Thread.sleep(chaos.nextInt(2000));
            nats.restart();
        } else if (roll < 45 && sessions.stream().filter(x -> x.workerKilled).count() < Math.max(1, options.sessions() / 5)) {
            // Until a fifth of the sessions went with their worker (one kill of a dense host may take more).
            List<SoakSession> alive = sessions.stream().filter(s -> !s.workerKilled).toList();
            SoakSession s = alive.get(chaos.nextInt(alive.size()));
            long worker = workerPid(s.id);
            if (worker > 0) {
                workerKills++;
                // A dense host holds several sessions: each of them goes with it.
                List<String> gone = new ArrayList<>();
                for (SoakSession other : alive) {
                    if (other == s || workerPid(other.id) == worker) {
                        other.workerKilled = true;
                        gone.add(other.id + " (" + other.kind + ")");
                    }
                }
                log("cycle " + cycles + ": kill -9 worker " + worker + " of " + String.join(", ", gone));
                ProcessHandle.of(worker).ifPresent(ProcessHandle::destroyForcibly);
            }
        } else {
            SoakConnection c = connections.get(chaos.nextInt(connections.size()));
            clientKills++;
            long away = chaos.nextInt(3000);
            log("cycle " + cycles + ": drop client " + c.name + " for " + away + " ms");
            c.kill(away);
        }
    }

    private void ensureDaemon() throws Exception {
        if (!daemon.process.isAlive()) {
            daemon = startDaemon();
        }
        for (int i = 0; i < nodes.length; i++) {
            if (!nodes[i].process.isAlive()) {
                nodes[i] = startNode(i);
            }
        }
    }

    /** The worker's pid from its registry entry, or -1. */
    private long workerPid(String sessionId) {
        try {
            String id = Files.readString(root.resolve("daemon-id")).strip();
            JsonNode entry = JSON.readTree(root.resolve("workers").resolve(id).resolve("registry").resolve(sessionId + ".json").toFile());
            return entry.path("worker_pid").asLong(-1);
        } catch (IOException e) {
            return -1;
        }
    }

    private void sampleMemory() {
        long d = Pss.kilobytes(daemon.pid());
        long total = Math.max(0, d);
        daemonPeakKb = Math.max(daemonPeakKb, d);
        Set<Long> counted = new HashSet<>();
        for (SoakSession s : sessions) {
            long pid = s.workerKilled ? -1 : workerPid(s.id);
            if (pid <= 0 || !counted.add(pid)) {
                continue; // a dense host's sessions share one process: counted once
            }
            long w = Pss.kilobytes(pid);
            if (w > 0) {
                workerPeakKb = Math.max(workerPeakKb, w);
                total += w;
            }
        }
        totalPeakKb = Math.max(totalPeakKb, total);
    }

    /**
     * Every client back and attached; then every program told to stop writing, and the lossless
     * clients given until {@link #CATCH_UP} to receive everything the programs wrote.
     */
    private void settle() throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!connections.stream().allMatch(SoakConnection::settled) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        for (SoakConnection c : connections) {
            if (!c.settled()) {
                failures.add("client " + c.name + " could not reconnect and re-attach within 60 s");
            }
        }
        try (WsClient control = WsClient.connect(wsUrl())) {
            for (SoakSession s : sessions) {
                if (!s.workerKilled) {
                    control.input(s.id, "q");
                }
            }
            Map<String, Long> ends = stableEnds(control);
            deadline = System.nanoTime() + CATCH_UP.toNanos();
            while (System.nanoTime() < deadline && sessions.stream().anyMatch(s -> !s.workerKilled && s.lossless.next() < ends.getOrDefault(s.id, 0L))) {
                Thread.sleep(200);
            }
            for (SoakSession s : sessions) {
                long endOffset = ends.getOrDefault(s.id, -1L);
                if (!s.workerKilled && s.lossless.next() != endOffset) {
                    failures.add("session " + s.id + " (" + s.kind + "): lossless client " + s.losslessClient + " at " + s.lossless.next() + " of " + endOffset
                            + " after " + CATCH_UP.toSeconds() + " s (hang); " + s.lossless.describe());
                }
            }
        }
    }

    /** Each running session's end offset once output has stopped (unchanged for 3 s). */
    private Map<String, Long> stableEnds(WsClient control) throws Exception {
        Map<String, Long> last = Map.of();
        long stableSince = System.nanoTime();
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        while (System.nanoTime() < deadline) {
            Map<String, Long> now = new HashMap<>();
            for (JsonNode s : list(control)) {
                now.put(s.path("id").asText(), s.path("end_offset").asLong());
            }
            if (!now.equals(last)) {
                last = now;
                stableSince = System.nanoTime();
            } else if (System.nanoTime() - stableSince > 3_000_000_000L) {
                break;
            }
            Thread.sleep(500);
        }
        return last;
    }

    private JsonNode list(WsClient control) throws IOException {
        return control.request(JSON.createObjectNode().put("type", "list_sessions")).path("sessions");
    }

    private void finalChecks() throws Exception {
        try (WsClient control = WsClient.connect(wsUrl())) {
            long deadline = System.nanoTime() + 60_000_000_000L;
            Map<String, JsonNode> byId;
            while (true) {
                byId = new LinkedHashMap<>();
                for (JsonNode s : list(control)) {
                    byId.put(s.path("id").asText(), s);
                }
                Map<String, JsonNode> current = byId;
                boolean killedSettled = sessions.stream().filter(s -> s.workerKilled)
                        .allMatch(s -> current.containsKey(s.id) && !current.get(s.id).path("state").asText().equals("running"));
                if (killedSettled || System.nanoTime() > deadline) {
                    break;
                }
                Thread.sleep(500);
            }
            for (SoakSession s : sessions) {
                JsonNode info = byId.get(s.id);
                String state = info == null ? "missing" : info.path("state").asText();
                if (s.workerKilled) {
                    if (!state.equals("exited") && !state.equals("recoverable")) {
                        failures.add("session " + s.id + ": its worker was killed, yet it is " + state + " after 60 s (hung)");
                    }
                    continue;
                }
                long pid = info == null ? -1 : info.path("pid").asLong(-1);
                if (!state.equals("running") || pid != s.pid) {
                    failures.add("session " + s.id + " (" + s.kind + "): " + state + " with pid " + pid + ", expected running with pid " + s.pid);
                }
                if (s.lossless.losses() > 0) {
                    failures.add("session " + s.id + " (" + s.kind + "): lossless client " + s.losslessClient + " lost bytes: " + s.lossless.describe());
                }
                if (s.liveBackwards > 0) {
                    failures.add("session " + s.id + ": a live client received " + s.liveBackwards + " frames that went back in the stream");
                }
            }
        }
        if (daemonPeakKb > DAEMON_PSS_BOUND_KB) {
            failures.add("daemon PSS peaked at " + daemonPeakKb / 1024 + " MB, above the bound of " + DAEMON_PSS_BOUND_KB / 1024 + " MB");
        }
        if (workerPeakKb > WORKER_PSS_BOUND_KB) {
            failures.add("a worker's PSS peaked at " + workerPeakKb / 1024 + " MB, above the bound of " + WORKER_PSS_BOUND_KB / 1024 + " MB");
        }
    }

    private String table(ZonedDateTime started, String loadBefore, double chaosMinutes) {
        long checked = sessions.stream().mapToLong(s -> s.lossless.checked()).sum();
        long losses = sessions.stream().filter(s -> !s.workerKilled).mapToLong(s -> s.lossless.losses()).sum();
        long lostOnKilled = sessions.stream().filter(s -> s.workerKilled).mapToLong(s -> s.lossless.losses()).sum();
        long losslessDesyncs = sessions.stream().mapToLong(s -> s.lossless.desyncs()).sum();
        long announced = sessions.stream().mapToLong(s -> s.lossless.announced()).sum();
        Map<String, Integer> desyncReasons = new TreeMap<>();
        sessions.forEach(s -> s.lossless.desyncReasons().forEach((r, n) -> desyncReasons.merge(r, n, Integer::sum)));
        long liveBytes = sessions.stream().mapToLong(s -> s.liveBytes).sum();
        long liveDesyncs = sessions.stream().mapToLong(s -> s.liveDesyncs).sum();
        long backwards = sessions.stream().mapToLong(s -> s.liveBackwards).sum();
        long running = sessions.stream().filter(s -> !s.workerKilled).count();
        int reconnects = connections.stream().mapToInt(c -> c.reconnects).sum();
        StringBuilder t = new StringBuilder();
        t.append("## Latest soak\n\n");
        t.append("- date: ").append(started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                .append("; commit ").append(MachineInfo.commit(options.repo())).append('\n');
        t.append("- machine: ").append(MachineInfo.machine()).append('\n');
        t.append("- load average before: ").append(loadBefore).append("; after: ").append(MachineInfo.load()).append('\n');
        t.append("- command: `./limpet soak --minutes ").append(fmt(options.minutes())).append(" --seed ").append(options.seed())
                .append("` (").append(String.format("%.1f", chaosMinutes)).append(" min of chaos after start-up)\n\n");
        t.append("| what | result | bound |\n|---|---|---|\n");
        t.append(row("chaos cycles", cycles + " (daemon kill -9 + restart: " + daemonKills + ", worker kill -9: " + workerKills
                + ", client dropped: " + clientKills + ", relay node kill -9 + restart: " + relayKills + ", NATS kill -9 + restart: " + natsKills
                + ")", "—"));
        t.append(row("clients through the relay cluster (2 nodes on NATS, either node)", connections.stream().filter(c -> c.relayed)
                .map(c -> c.name).toList().toString(), "—"));
        t.append(row("sessions", sessions.size() + " (" + running + " whose worker was not killed: running with their first pid: "
                + (running - failures.stream().filter(f -> f.contains("expected running")).count()) + ")", "all"));
        t.append(row("sessions of killed workers", workerKills + ", all exited or recoverable: "
                + (failures.stream().noneMatch(f -> f.contains("hung")) ? "yes" : "no"), "all"));
        t.append(row("bytes checked (lossless clients, byte by byte)", mb(checked) + " (" + checked + " bytes)", "—"));
        t.append(row("losses (missing, duplicated, wrong bytes, snapshots) on surviving sessions", Long.toString(losses), "0"));
        t.append(row("losses on sessions whose worker was killed (before the kill)", Long.toString(lostOnKilled), "0"));
        t.append(row("gaps announced to lossless clients away past the " + (int) SoakConnection.LOSSLESS_HOLD_SECONDS
                + " s hold (truncated re-attach + snapshot)", mb(announced) + " (" + announced + " bytes)", "—"));
        t.append(row("lossless desyncs (re-attached from their offset; by reason)", losslessDesyncs
                + (desyncReasons.isEmpty() ? "" : " " + desyncReasons), "—"));
        t.append(row("live clients: bytes, desyncs, frames going back", mb(liveBytes) + ", " + liveDesyncs + ", " + backwards, "—, —, 0"));
        t.append(row("client reconnects", Integer.toString(reconnects), "—"));
        List<Long> restarts = restartMillis.stream().sorted().toList();
        t.append(row("daemon kill -9 → initial_state of the new one (median, max)", restarts.isEmpty() ? "—"
                : String.format("%.1f s, %.1f s", restarts.get(restarts.size() / 2) / 1e3, restarts.getLast() / 1e3), "—"));
        t.append(row("daemon PSS peak", daemonPeakKb / 1024 + " MB", "≤ " + DAEMON_PSS_BOUND_KB / 1024 + " MB"));
        t.append(row("worker PSS peak (largest one)", workerPeakKb / 1024 + " MB", "≤ " + WORKER_PSS_BOUND_KB / 1024 + " MB"));
        t.append(row("daemon + workers PSS peak", totalPeakKb / 1024 + " MB", "—"));
        t.append(row("result", failures.isEmpty() ? "PASS" : "FAIL: " + failures.size() + " problem(s)", "PASS"));
        t.append('\n');
        failures.forEach(f -> t.append("- FAILED: ").append(f).append('\n'));
        sessions.forEach(s -> s.lossless.lossEvents().forEach(e -> t.append("- lost place: ").append(e).append('\n')));
        return t.toString();
    }

    private static String row(String what, String result, String bound) {
        return "| " + what + " | " + result + " | " + bound + " |\n";
    }

    private static String mb(long bytes) {
        return String.format("%.1f MB", bytes / 1e6);
    }

    private static String fmt(double minutes) {
        return minutes == Math.rint(minutes) ? Long.toString((long) minutes) : Double.toString(minutes);
    }
}
