package dev.limpet.bench.figures;

import dev.limpet.bench.BenchContext;
import dev.limpet.bench.client.WsClient;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.proc.LimpetRelay;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Stats;
import dev.limpet.bench.report.Units;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Figure 10: the same daemon reached directly and through a {@code limpet relay} on
 * loopback, end-to-end encrypted: a lossless flood's rate and keystroke echo, in the same run, with
 * the same measurements as figures 1 and 2 (their code). Goals: flood ≥ 0.5× direct, echo p50 ≤
 * direct + 1 ms. Then the same through a cluster of relays: the daemon's uplink on node 1, the
 * client on node 2, both nodes on one {@code nats-server}: goals flood ≥ 0.3× direct, echo p50 ≤
 * one node's + 2 ms.
 */
public final class RelayFigure implements Figure {
    @Override
    public String name() {
        return "relay";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        long bytes = ctx.options.pick(64, 8) * (1L << 20);
        int keys = ctx.options.pick(2000, 200);
        int runs = ctx.options.pick(3, 1);
        Path dir = Files.createTempDirectory("limpet-bench-relay-");
        Path root = dir.resolve("root");
        Measured singleEcho;
        try (LimpetRelay relay = LimpetRelay.start(ctx.jar, dir)) {
            relay.enrol(root);
            try (LimpetDaemon daemon = LimpetDaemon.start(ctx.jar, root, "worker", List.of(), Map.of(), List.of("--relay", relay.url))) {
                awaitGate(daemon);
                singleEcho = measure(ctx, "10 relay", daemon, relay.pair(root), bytes, keys, runs, "≥ 0.5× direct", "≤ direct + 1 ms");
            }
        }
        Path clusterDir = Files.createTempDirectory("limpet-bench-cluster-");
        Path clusterRoot = clusterDir.resolve("root");
        try (dev.limpet.testkit.NatsServer nats = dev.limpet.testkit.NatsServer.start(clusterDir.resolve("nats"));
                LimpetRelay node1 = LimpetRelay.start(ctx.jar, clusterDir, "node1.log", "--nats", nats.url(), "--insecure-nats");
                LimpetRelay node2 = LimpetRelay.start(ctx.jar, clusterDir, "node2.log", "--nats", nats.url(), "--insecure-nats")) {
            node1.enrol(clusterRoot);
            try (LimpetDaemon daemon = LimpetDaemon.start(ctx.jar, clusterRoot, "worker", List.of(), Map.of(),
                    List.of("--relay", node1.url))) {
                awaitGate(daemon);
                // The link names node 1, which holds the uplink; the client comes in through node 2.
                String link = node1.pair(clusterRoot).replace(node1.url, node2.url);
                double oneNodeEchoMicros = singleEcho.limpetMedian() / 1000.0;
                measure(ctx, "10 relay cluster (client on node 2, uplink on node 1, NATS)", daemon, link, bytes, keys, runs, "≥ 0.3× direct",
                        String.format(Locale.ROOT, "≤ one node's + 2 ms (%.0f µs)", oneNodeEchoMicros + 2000));
            }
        } catch (IOException e) {
            if (!Files.isExecutable(dev.limpet.testkit.NatsServer.BINARY)) {
                ctx.add(Row.notAvailable("10 relay cluster", "no nats-server at " + dev.limpet.testkit.NatsServer.BINARY + " (apt-get install nats-server)",
                        "≥ 0.3× direct"));
                return;
            }
            throw e;
        }
    }

    /** Flood and echo through {@code link} and directly, in the same run; the echo as measured (relayed, direct). */
    private static Measured measure(BenchContext ctx, String figure, LimpetDaemon daemon, String link, long bytes, int keys, int runs,
            String floodGoal, String echoGoal) throws Exception {
        List<FloodRun> direct = new ArrayList<>();
        List<FloodRun> relayed = new ArrayList<>();
        List<List<Double>> echoDirect = new ArrayList<>();
        List<List<Double>> echoRelayed = new ArrayList<>();
        try (WsClient d = WsClient.connect(daemon.wsUrl()); WsClient r = WsClient.connectThroughRelay(link)) {
            for (int i = 0; i < runs; i++) {
                direct.add(ThroughputFigure.limpetRun(ctx, d, bytes, "lossless", 30));
                relayed.add(ThroughputFigure.limpetRun(ctx, r, bytes, "lossless", 30));
                echoDirect.add(EchoFigure.limpetRun(d, keys));
                echoRelayed.add(EchoFigure.limpetRun(r, keys));
                ctx.log(String.format("relay run %d: flood %s direct, %s relayed; echo p50 %s direct, %s relayed", i + 1,
                        Units.mbPerSecond(direct.getLast().bytesPerSecond()), Units.mbPerSecond(relayed.getLast().bytesPerSecond()),
                        Units.micros(Stats.percentile(echoDirect.getLast(), 50)), Units.micros(Stats.percentile(echoRelayed.getLast(), 50))));
            }
        }
        Measured flood = new Measured(relayed.stream().map(FloodRun::bytesPerSecond).toList(),
                direct.stream().map(FloodRun::bytesPerSecond).toList());
        boolean complete = relayed.stream().allMatch(FloodRun::complete) && direct.stream().allMatch(FloodRun::complete);
        ctx.add(new Row(figure + ": lossless flood, relay vs direct (" + (bytes >> 20) + " MiB × " + runs + ")",
                (complete ? "" : "⚠ NOT LOSSLESS: ") + Units.mbPerSecond(flood.limpetMedian()), Units.mbPerSecond(flood.referenceMedian()),
                Measured.ratio(flood.ratio()), flood.spread(), floodGoal));
        Measured echo = new Measured(echoRelayed.stream().map(l -> Stats.percentile(l, 50)).toList(),
                echoDirect.stream().map(l -> Stats.percentile(l, 50)).toList());
        ctx.add(new Row(figure + ": echo p50, relay vs direct (" + keys + " keys × " + runs + ")", Units.micros(echo.limpetMedian()),
                Units.micros(echo.referenceMedian()), "+" + Units.micros(echo.limpetMedian() - echo.referenceMedian()), echo.spread(),
                echoGoal));
        return echo;
    }

    /** Waits until the daemon's uplink is connected and has told the relay's gate its pairings. */
    static void awaitGate(LimpetDaemon daemon) throws Exception {
        for (int i = 0; i < 600; i++) {
            var relay = daemon.status().path("relay");
            if (relay.path("state").asText().equals("connected") && relay.path("gate_pairings").asInt(-1) >= 0) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IOException("the daemon's uplink to the relay never came up");
    }
}
