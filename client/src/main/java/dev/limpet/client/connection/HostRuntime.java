package dev.limpet.client.connection;

import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.frame.Frame;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Per-host orchestrator: the only source of truth for one host's connectivity ({@link #snapshot()}).
 *
 * <p>Contract:
 * <ul>
 *   <li>Owns the active {@link DaemonClient}. {@link #switchActive()} replaces it atomically: it
 *       creates the next client, subscribes to it, bumps the generation, then disposes the previous
 *       one; anything the previous client reports afterwards is from an older generation and ignored.
 *   <li>Every asynchronous completion (client transitions, messages, probe results) is checked against
 *       the generation it was started under and dropped when stale.
 *   <li>Probe clients ({@link #probe()}) measure latency and health on their own connection; they never
 *       change the active client, its state or its session.
 *   <li>Everything runs on the {@link Scheduler}'s loop; public methods may be called from any thread.
 * </ul>
 */
public final class HostRuntime {

    /** Makes the clients of this host; {@code role} is {@code active} or {@code probe}. */
    @FunctionalInterface
    public interface ClientFactory {
        DaemonClient create(String role, long generation);
    }

    /** Receives snapshots and the active client's traffic, on the loop thread, current generation only. */
    public interface Listener {
        default void onSnapshot(HostSnapshot snapshot) {}

        default void onActiveTransition(ConnectionTransition transition) {}

        default void onMessage(ServerMessage message) {}

        default void onBinary(Frame frame) {}
    }

    private static final int KEPT_PROBES = 8;

    private final String host;
    private final String keyHash;
    private final Scheduler scheduler;
    private final ClientFactory factory;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    // Loop-confined.
    private long generation;
    private DaemonClient active;
    private boolean everOnline;
    private boolean stopped;
    private long probeCounter;
    private final List<ProbeResult> probes = new ArrayList<>();

    private volatile DaemonClient publishedActive;
    private volatile HostSnapshot snapshot;

    public HostRuntime(String host, String clientSessionKey, Scheduler scheduler, ClientFactory factory) {
        this.host = Objects.requireNonNull(host, "host");
        this.keyHash = KeyHash.of(clientSessionKey);
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.factory = Objects.requireNonNull(factory, "factory");
        this.snapshot = new HostSnapshot(host, HostState.NO_CONNECTIONS, 0, null, 0, null, null, List.of());
    }

    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    public HostSnapshot snapshot() {
        return snapshot;
    }

    /** The active client, or null before {@link #start()}. Send through it; never dispose it yourself. */
    public DaemonClient active() {
        return publishedActive;
    }

    /** Creates the first active client and connects it; a no-op once started or stopped. */
    public void start() {
        scheduler.execute(() -> {
            if (active == null && !stopped) {
                promoteNewActive("start");
            }
        });
    }

    /** Replaces the active client with a fresh one (new transport, same identity) and connects it. */
    public void switchActive() {
        scheduler.execute(() -> {
            if (!stopped) {
                promoteNewActive("switch_active");
            }
        });
    }

    /** Disposes the active client and every future probe; terminal. */
    public void stop() {
        scheduler.execute(() -> {
            if (stopped) {
                return;
            }
            stopped = true;
            generation++;
            if (active != null) {
                active.dispose();
            }
            publish("stop", HostState.STOPPED, null);
        });
    }

    /**
     * Opens a probe client, measures the time to {@code initial_state}, then disposes it. The result
     * lands in the snapshot only if the generation did not change meanwhile; the returned future
     * completes either way.
     */
    public CompletableFuture<ProbeResult> probe() {
        CompletableFuture<ProbeResult> result = new CompletableFuture<>();
        scheduler.execute(() -> {
            long startedUnder = generation;
            long number = ++probeCounter;
            Instant started = scheduler.clock().instant();
            DaemonClient probe = factory.create("probe", startedUnder);
            probe.addListener(new DaemonClient.Listener() {
                @Override
                public void onTransition(ConnectionTransition t) {
                    ProbeResult outcome = switch (t.to()) {
                        case CONNECTED -> new ProbeResult(number, startedUnder, true,
                                Duration.between(started, scheduler.clock().instant()), null,
                                probe.initialState() == null ? null : probe.initialState().daemonInstanceId());
                        case DISCONNECTED, DISPOSED -> new ProbeResult(number, startedUnder, false, null, t.reason(), null);
                        default -> null;
                    };
                    if (outcome == null || result.isDone()) {
                        return;
                    }
                    probe.dispose();
                    result.complete(outcome);
                    runIfCurrent(startedUnder, "probe_result", () -> recordProbe(outcome));
                }
            });
            probe.ensureConnected();
        });
        return result;
    }

    /**
     * Runs {@code action} only if {@code expectedGeneration} is still current; otherwise logs and drops
     * it. Every asynchronous completion goes through here. Must be called on the loop.
     */
    boolean runIfCurrent(long expectedGeneration, String what, Runnable action) {
        if (expectedGeneration != generation || stopped) {
            TransitionLog.ignored(host, keyHash, "runtime", generation, what + " from generation " + expectedGeneration);
            return false;
        }
        action.run();
        return true;
    }

    /** The current generation; for tests and logs. */
    long generation() {
        return generation;
    }

    private void promoteNewActive(String event) {
        long next = generation + 1;
        DaemonClient previous = active;
        DaemonClient created = factory.create("active", next);
        created.addListener(new ActiveEvents(next));
        generation = next;
        active = created;
        publishedActive = created;
        everOnline = false;
        probes.clear();
        publish(event, HostState.CONNECTING_ACTIVE, null);
        if (previous != null) {
            previous.dispose();
        }
        created.ensureConnected();
    }

    private void recordProbe(ProbeResult outcome) {
        probes.add(outcome);
        if (probes.size() > KEPT_PROBES) {
            probes.removeFirst();
        }
        publish("probe_result", snapshot.state(), null);
    }

    private void onActiveTransition(ConnectionTransition t) {
        HostState next = switch (t.to()) {
            case IDLE, CONNECTING -> everOnline ? HostState.DEGRADED : HostState.CONNECTING_ACTIVE;
            case CONNECTED -> HostState.ONLINE;
            case DISCONNECTED -> t.retryIn() != null ? (everOnline ? HostState.DEGRADED : HostState.CONNECTING_ACTIVE) : HostState.ERROR;
            case DISPOSED -> HostState.STOPPED;
        };
        if (t.to() == ConnectionState.CONNECTED) {
            everOnline = true;
        }
        publish(t.event().wire(), next, t);
        for (Listener l : listeners) {
            l.onActiveTransition(t);
        }
    }

    private void publish(String event, HostState state, ConnectionTransition t) {
        HostSnapshot before = snapshot;
        DaemonClient client = active;
        ServerMessage.InitialState initial = client == null ? null : client.initialState();
        HostSnapshot after = new HostSnapshot(host, state, generation,
                t != null ? t.to() : client == null ? null : client.state(),
                t != null ? t.attempt() : before.attempt(),
                t != null && t.reason() != null ? t.reason() : before.generation() == generation ? before.lastFailure() : null,
                initial == null ? null : initial.daemonInstanceId(),
                probes);
        snapshot = after;
        if (before.state() != after.state() || before.generation() != after.generation()) {
            TransitionLog.host(host, keyHash, generation, before.state(), after.state(), event,
                    after.lastFailure() == null ? null : after.lastFailure().reason());
        }
        for (Listener l : listeners) {
            l.onSnapshot(after);
        }
    }

    /** The active client's events, bound to the generation it was promoted under. */
    private final class ActiveEvents implements DaemonClient.Listener {
        private final long boundGeneration;

        ActiveEvents(long boundGeneration) {
            this.boundGeneration = boundGeneration;
        }

        @Override
        public void onTransition(ConnectionTransition transition) {
            runIfCurrent(boundGeneration, "transition " + transition.event().wire(), () -> onActiveTransition(transition));
        }

        @Override
        public void onMessage(ServerMessage message) {
            runIfCurrent(boundGeneration, "message " + message.type(), () -> listeners.forEach(l -> l.onMessage(message)));
        }

        @Override
        public void onBinary(Frame frame) {
            runIfCurrent(boundGeneration, "binary frame", () -> listeners.forEach(l -> l.onBinary(frame)));
        }
    }
}
