package dev.limpet.daemon;

import dev.limpet.daemon.backend.RecoveryReport;
import dev.limpet.daemon.backend.RecoveryReport.Count;
import dev.limpet.daemon.files.AuthToken;
import dev.limpet.daemon.files.DaemonIdentity;
import dev.limpet.daemon.files.DaemonInfoFile;
import dev.limpet.daemon.files.DataRoot;
import dev.limpet.daemon.files.PidLock;
import dev.limpet.daemon.gateway.GatewayServer;
import dev.limpet.daemon.metrics.DaemonMetrics;
import dev.limpet.daemon.metrics.MetricsListener;
import dev.limpet.daemon.relay.Pairings;
import dev.limpet.daemon.relay.RelayCredential;
import dev.limpet.daemon.relay.RelayUplink;
import dev.limpet.daemon.relay.RelayUrls;
import dev.limpet.daemon.revive.AgentProfiles;
import dev.limpet.daemon.sessions.RecoveryBarrier;
import dev.limpet.daemon.sessions.ReviveSettings;
import dev.limpet.daemon.sessions.SessionService;
import dev.limpet.daemon.store.SessionStore;
import dev.limpet.daemon.store.SqliteNativeLibrary;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.LimpetVersion;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running daemon: start-up in the order of the design (lock, store, listen behind the recovery
 * barrier, the backend's recovery then the store's, lift), and a shutdown that tries every step.
 */
public final class Daemon implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);

    private final DataRoot root;
    private final PidLock lock;
    private final SessionStore store;
    private final BackendSelection selection;
    private final SessionService sessions;
    private final GatewayServer gateway;
    private final ScheduledExecutorService scheduler;
    private final RecoveryBarrier barrier = new RecoveryBarrier();
    private final String daemonInstanceId;
    private final AuthToken token;
    private final String url;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final DaemonMetrics metrics = new DaemonMetrics();
    private final List<DaemonConfig.Setting> settings;
    private final MetricsListener metricsListener;
    private volatile RecoveryReport recovery = RecoveryReport.EMPTY;
    private final RelayUplink relay;

    private Daemon(DaemonConfig config) throws IOException {
        Clock clock = Clock.systemUTC();
        settings = config.settings();
        root = DataRoot.resolve(config.dataRoot()).ensureExists();
        lock = PidLock.acquire(root);
        LOG.info("data root {} locked", root.dir());
        try {
            daemonInstanceId = DaemonIdentity.loadOrCreate(root);
            token = AuthToken.loadOrCreate(root);
            SqliteNativeLibrary.in(PrivateFiles.directory(root.nativeLibraries())).forEach(System::setProperty);
            store = SessionStore.open(root.database());
            selection = BackendSelection.select(config, root, daemonInstanceId);
            scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("limpet-timer").factory());
            sessions = new SessionService(store, selection.backend(), barrier, clock, scheduler, config.closeGrace(), config.orphanGrace());
            sessions.setRevive(reviveSettings(config, root));
            sessions.setHome(root.dir());
            sessions.setAgentHooks(agentHooks(root));
            metrics.watchSessions(() -> barrier.isUp() ? List.of() : sessions.list(), selection.backend().name());
            gateway = new GatewayServer(new GatewayServer.Settings(config.listenHost(), config.port(), config.allowedOrigins(),
                    config.clientGrace(), config.ringBytes(), config.ackTimeout()), token, sessions, barrier, clock, this::initialState, this::status,
                    metrics).start();
            try {
                metricsListener = MetricsListener.start(config.metricsListen(), metrics);
            } catch (IOException | RuntimeException e) {
                gateway.close();
                throw e;
            }
            String host = config.listenHost().contains(":") ? "[" + config.listenHost() + "]" : config.listenHost();
            url = "http://" + host + ":" + gateway.port() + "/";
            try {
                relay = relayUplink(config, clock);
            } catch (IOException | RuntimeException e) {
                gateway.close();
                metricsListener.close();
                throw e;
            }
            DaemonInfoFile.write(root, new DaemonInfoFile.Info(ProcessHandle.current().pid(), url, gateway.port(),
                    daemonInstanceId, LimpetVersion.get(), selection.backend().name(), config.relayUrl()));
            LOG.info("daemon {} listening on {} (recovery barrier up)", daemonInstanceId, url);
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /**
     * The uplink to {@code --relay}, or null without one. A relay URL without a readable
     * credential stops the start-up with the remedy: a daemon asked to be reachable must not
     * quietly be unreachable.
     */
    private RelayUplink relayUplink(DaemonConfig config, Clock clock) throws IOException {
        if (config.relayUrl() == null) {
            return null;
        }
        List<URI> uris;
        try {
            uris = RelayUrls.parseList(config.relayUrl());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--relay " + config.relayUrl() + ": " + e.getMessage(), e);
        }
        RelayCredential credential;
        try {
            credential = RelayCredential.load(root.dir());
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        LOG.info("relay uplink to {} as host {}", uris, credential.hostId());
        return new RelayUplink(uris, credential, new Pairings(root.dir(), clock), RelayUplink.Gateway.of(gateway),
                clock, scheduler, RelayUplink.BACKOFF).start();
    }

    /** The journal directory (private, like the data root) unless {@code --no-journal}; the user's agent profiles. */
    private static ReviveSettings reviveSettings(DaemonConfig config, DataRoot root) throws IOException {
        Path journal = null;
        if (config.journal()) {
            journal = dev.limpet.terminal.os.PrivateFiles.directory(root.journal());
        }
        AgentProfiles profiles = AgentProfiles.load(AgentProfiles.configDir(System.getenv(), System.getProperty("user.home")).resolve("agents"));
        Duration sample = ReviveSettings.DEFAULT_CWD_SAMPLE;
        String every = System.getenv("LIMPET_CWD_SAMPLE_MILLIS");
        if (every != null && every.matches("\\d{2,7}")) {
            sample = Duration.ofMillis(Long.parseLong(every));
        }
        LOG.info("journal {}; agent profiles: {} built in{}", journal == null ? "off (--no-journal)" : journal + " (" + config.journalBytes()
                + " bytes per session)", AgentProfiles.BUILT_IN.size(), profiles.warnings().isEmpty() ? "" : ", " + profiles.warnings());
        return new ReviveSettings(journal, config.journalBytes(), ReviveSettings.DEFAULT_HISTORY_BYTES, profiles, sample,
                ZoneId.systemDefault(), new dev.limpet.daemon.revive.ConversationFiles(System.getenv()));
    }

    /**
     * Writes the hook settings of Claude Code and Gemini CLI for agent profiles that ask for them
     * (Codex's go on its command line). A file that cannot be written turns hooks off, loudly:
     * agents still run, their activity then comes from their title and output only.
     */
    private static dev.limpet.daemon.activity.AgentHooks agentHooks(DataRoot root) {
        List<String> hook;
        Path claude;
        try {
            String classPath = dev.limpet.daemon.backend.worker.RuntimeJar.classPath(root.runtime());
            hook = dev.limpet.daemon.files.ClaudeSettingsFile.hookCommand(Path.of(System.getProperty("java.home")), classPath);
            claude = dev.limpet.daemon.files.ClaudeSettingsFile.write(root, hook);
            LOG.info("agent hooks: Claude Code sessions get --settings {}, Codex sessions -c notify", claude);
        } catch (IOException | RuntimeException e) {
            LOG.warn("agent hooks off: cannot write {}: {}", root.hooks(), e.toString());
            return dev.limpet.daemon.activity.AgentHooks.NONE;
        }
        Path gemini = null;
        try {
            gemini = dev.limpet.daemon.files.GeminiDefaultsFile.write(root, hook, System.getenv());
            LOG.info("agent hooks: Gemini CLI sessions get GEMINI_CLI_SYSTEM_DEFAULTS_PATH={}", gemini);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Gemini CLI hooks off: cannot write {}: {}", root.hooks(), e.toString());
        }
        return new dev.limpet.daemon.activity.AgentHooks(claude, hook, gemini);
    }

    /** Starts a daemon and returns once it serves clients with the barrier lifted. */
    /** The user's other hosts, for the page this daemon serves ({@code GET /api/hosts}, docs/ui.md "Every host in one place"). */
    public void setCockpitHosts(dev.limpet.daemon.gateway.CockpitHost.Source hosts) {
        gateway.setCockpitHosts(hosts);
    }

    public static Daemon start(DaemonConfig config) throws IOException {
        Daemon d = new Daemon(config);
        d.recover();
        return d;
    }

    private void recover() {
        long t0 = System.nanoTime();
        recovery = sessions.recover();
        barrier.lift();
        metrics.recovered(recovery, Duration.ofNanos(System.nanoTime() - t0));
        LOG.info("recovery done in {} ms: recovered={} pruned={} missing={} failed={} quarantined={}; barrier lifted",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), recovery.count(Count.RECOVERED), recovery.count(Count.PRUNED),
                recovery.count(Count.MISSING), recovery.count(Count.FAILED), recovery.count(Count.QUARANTINED));
        // Clients get the warnings in initial_state (sent on the lift, and to every later client).
        for (RecoveryReport.Warning w : recovery.warnings()) {
            LOG.warn("{}: {}", w.code().wire(), w.message());
        }
        long sampleMillis = sessions.reviveSettings().cwdSampleEvery().toMillis();
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                sessions.samplePrograms();
            } catch (RuntimeException e) {
                LOG.debug("sampling the running programs failed: {}", e.toString());
            }
        }, sampleMillis, sampleMillis, TimeUnit.MILLISECONDS);
        if (sessions.orphanGrace().isPositive()) {
            long every = Math.max(1, Math.min(5, sessions.orphanGrace().toSeconds() / 4));
            scheduler.scheduleWithFixedDelay(sessions::reapOrphans, every, every, TimeUnit.SECONDS);
        }
    }

    public String url() {
        return url;
    }

    public int port() {
        return gateway.port();
    }

    public String token() {
        return token.value();
    }

    public String daemonInstanceId() {
        return daemonInstanceId;
    }

    public DataRoot dataRoot() {
        return root;
    }

    private ServerMessage.InitialState initialState() {
        RecoveryReport r = recovery;
        return new ServerMessage.InitialState(ProtocolCodec.PROTOCOL, daemonInstanceId, LimpetVersion.get(),
                selection.backend().name(), degraded(), sessions.list(),
                r.toMessage(),
                new ServerMessage.ClientSessionState(false, List.of()), warnings(r));
    }

    /** Start-up recovery's warnings, then the sessions lost since (a worker host that died), never silent. */
    private List<ServerMessage.Warning> warnings(RecoveryReport r) {
        List<ServerMessage.Warning> all = new ArrayList<>(r.warnings().stream().map(RecoveryReport.Warning::toMessage).toList());
        if (!barrier.isUp()) {
            all.addAll(sessions.lostWarnings());
        }
        return all;
    }

    /** The backend's degraded modes, and the relay's (its uplink down, a slow cipher): never silent. */
    private List<String> degraded() {
        List<String> relayLines = relay == null ? List.of() : relay.degradedLines();
        if (relayLines.isEmpty()) {
            return selection.degraded();
        }
        List<String> all = new ArrayList<>(selection.degraded());
        all.addAll(relayLines);
        return all;
    }

    private Map<String, Object> status() {
        RecoveryReport r = recovery;
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("pid", ProcessHandle.current().pid());
        s.put("url", url);
        s.put("version", LimpetVersion.get());
        s.put("backend", selection.backend().name());
        if (selection.backend() instanceof dev.limpet.daemon.backend.BackendDetails d) {
            s.put("backend_details", d.details());
        }
        s.put("daemon_instance_id", daemonInstanceId);
        List<SessionInfo> listed = barrier.isUp() ? List.of() : sessions.list();
        s.put("sessions", listed.size());
        // How many sessions wait for a person (docs/operations.md, "Which agent needs me"): approvals, then input.
        s.put("pending_approval", listed.stream().filter(x -> x.running() && x.activity() == Activity.PENDING_APPROVAL).count());
        s.put("waiting_input", listed.stream().filter(x -> x.running() && x.activity() == Activity.WAITING_INPUT).count());
        s.put("degraded", degraded());
        s.put("recovering", barrier.isUp());
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (Count c : Count.values()) {
            counts.put(c.label(), r.count(c));
        }
        s.put("recovery", counts);
        s.put("warnings", warnings(r).stream().map(w -> Map.of("code", w.code(), "message", w.message())).toList());
        s.put("connections", gateway.connections());
        s.put("relay", relay == null ? null : relay.status());
        s.put("config", settings);
        // Never silent: a daemon or verbs without their start-up cache are slower at every start and recovery.
        s.put("startup_caches", dev.limpet.daemon.startup.StartupCaches.jarOfThisProcess()
                .map(jar -> dev.limpet.daemon.startup.StartupCaches.beside(jar).status(dev.limpet.daemon.startup.StartupCaches
                        .cacheOfThisProcess(List.of(ProcessHandle.current().info().arguments().orElse(new String[0])))))
                .orElse(null));
        return s;
    }

    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    /** Stops serving. Tries every step and reports every failure; never signals workers. */
    @Override
    public void close() {
        if (stopped.getCount() == 0) {
            return;
        }
        List<Exception> failures = new ArrayList<>();
        sessions.stopping();
        if (relay != null) {
            step(failures, "close the relay uplink", relay::close);
        }
        step(failures, "stop the gateway", gateway::close);
        step(failures, "stop the metrics listener", metricsListener::close);
        step(failures, "shut the backend down", () -> selection.backend().shutdown());
        step(failures, "stop timers", scheduler::shutdownNow);
        step(failures, "close the store", store::close);
        step(failures, "remove daemon.json", () -> DaemonInfoFile.remove(root));
        step(failures, "release the pid lock", lock::close);
        LOG.info("daemon {} stopped{}", daemonInstanceId, failures.isEmpty() ? "" : " with " + failures.size() + " failure(s)");
        stopped.countDown();
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void step(List<Exception> failures, String what, Step step) {
        try {
            step.run();
        } catch (Exception e) {
            LOG.warn("shutdown: cannot {}: {}", what, e.toString());
            failures.add(e);
        }
    }
}
