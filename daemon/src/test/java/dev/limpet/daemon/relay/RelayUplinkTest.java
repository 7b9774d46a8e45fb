package dev.limpet.daemon.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.daemon.gateway.FrameSink;
import dev.limpet.daemon.gateway.GatewayServer;
import dev.limpet.protocol.WarningCode;
import dev.limpet.protocol.retry.Backoff;
import io.javalin.Javalin;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The uplink against a relay that goes away and comes back (a small stand-in relay: its healthz and its uplink socket). */
class RelayUplinkTest {
    @TempDir
    Path root;
    final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    final List<WarningCode> warnings = new CopyOnWriteArrayList<>();
    final RelayUplink.Gateway gateway = new RelayUplink.Gateway() {
        @Override
        public GatewayServer.RelayedConnection openRelayed(FrameSink sink) {
            throw new AssertionError("no client in this test");
        }

        @Override
        public void warnAll(WarningCode code, String message) {
            warnings.add(code);
        }
    };
    Javalin relay;
    RelayUplink uplink;

    @AfterEach
    void stop() {
        if (uplink != null) {
            uplink.close();
        }
        if (relay != null) {
            relay.stop();
        }
        timer.shutdownNow();
    }

    static Javalin relayOn(int port) {
        return Javalin.create(c -> {
            c.startup.showJavalinBanner = false;
            c.jetty.host = "127.0.0.1";
            c.jetty.port = port;
            c.routes.get("/healthz", ctx -> ctx.json(Map.of("ok", true)));
            c.routes.ws("/relay/uplink/{host}", ws -> { });
        }).start();
    }

    @Test
    void anUplinkThatBackedOffFarReconnectsAsSoonAsTheRelayAnswersAgain() {
        relay = relayOn(0);
        int port = relay.port();
        // Every wait as long as the backoff allows: a minute, far past this test's bounds.
        Backoff longest = new Backoff(Duration.ofSeconds(60), Duration.ofSeconds(60), new RandomGenerator() {
            @Override
            public long nextLong() {
                return Long.MAX_VALUE;
            }

            @Override
            public long nextLong(long bound) {
                return bound - 1;
            }
        });
        uplink = new RelayUplink(List.of(URI.create("http://127.0.0.1:" + port + "/")),
                new RelayCredential("abcdefghijklmnopqrstuvwxyz", "c2VjcmV0LWNyZWRlbnRpYWwtdmFsdWU"), new Pairings(root, Clock.systemUTC()),
                gateway, Clock.systemUTC(), timer, longest).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> uplink.snapshot().phase() == UplinkState.Phase.CONNECTED);

        relay.stop();
        await().atMost(Duration.ofSeconds(30)).until(() -> uplink.snapshot().phase() == UplinkState.Phase.WAITING);
        assertThat(Duration.between(Instant.now(), uplink.snapshot().nextAttemptAt())).isGreaterThan(Duration.ofSeconds(30));
        assertThat(warnings).contains(WarningCode.RELAY_UPLINK_DOWN);

        relay = relayOn(port);
        await().atMost(Duration.ofSeconds(15)).until(() -> uplink.snapshot().phase() == UplinkState.Phase.CONNECTED);
    }

    @Test
    void itsDegradedLinesSayWhenTheUplinkIsDownAndWhenRelayedBytesAreSealedByTheSlowCipher() {
        relay = relayOn(0);
        uplink = new RelayUplink(List.of(URI.create("http://127.0.0.1:" + relay.port() + "/")),
                new RelayCredential("abcdefghijklmnopqrstuvwxyz", "c2VjcmV0LWNyZWRlbnRpYWwtdmFsdWU"), new Pairings(root, Clock.systemUTC()),
                gateway, Clock.systemUTC(), timer, new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), RandomGenerator.getDefault())).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> uplink.snapshot().phase() == UplinkState.Phase.CONNECTED);
        assertThat(uplink.degradedLines()).as("this machine has OpenSSL").isEmpty();
        assertThat(uplink.degradedLines("jdk")).singleElement().asString().contains("JDK's AES-GCM").contains("libcrypto.so.3 did not load");

        relay.stop();
        await().atMost(Duration.ofSeconds(30)).until(() -> uplink.snapshot().phase() != UplinkState.Phase.CONNECTED);
        assertThat(uplink.degradedLines("openssl")).singleElement().asString().contains("cannot be reached through the relay");
        assertThat(uplink.degradedLines("jdk")).hasSize(2);
    }
}
