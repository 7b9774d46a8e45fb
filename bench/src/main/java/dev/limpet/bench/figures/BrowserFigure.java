package dev.limpet.bench.figures;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.limpet.bench.BenchContext;
import dev.limpet.bench.proc.LimpetDaemon;
import dev.limpet.bench.proc.LimpetRelay;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Units;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Figures 11 and 12: the web UI in Debian's Chromium, as a person gets it, against xterm.js on its
 * own in the same page ({@code web-e2e/bench/browser-figures.mjs} measures; its header says how):
 * a key until the frame that draws its echo, against xterm.js's local echo (goal ≤ 1.2×); and a
 * flood until its last line is drawn, against xterm.js taking the same bytes (goal ≥ 0.8×). The
 * page's WebSocket negotiates {@code permessage-deflate}, as every browser does. Then both again
 * in the page a pairing link opens through a {@code limpet relay} on loopback (no goal: the
 * figures say what end-to-end sealing and the relay's hop cost a page).
 */
public final class BrowserFigure implements Figure {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("LIMPET_CHROMIUM", "/usr/bin/chromium"));

    @Override
    public String name() {
        return "browser";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        Path e2e = ctx.options.repo().resolve("web-e2e");
        String missing = !Files.isExecutable(CHROMIUM) ? "no Chromium at " + CHROMIUM + " (apt-get install chromium)"
                : !Files.isRegularFile(e2e.resolve("bench/browser-figures.mjs")) ? "web-e2e/bench/browser-figures.mjs is missing"
                : null;
        if (missing == null && !node(e2e, List.of("scripts/ensure-deps.mjs"), 300).ok()) {
            missing = "installing web-e2e's pinned npm packages failed";
        }
        if (missing != null) {
            ctx.add(Row.notAvailable("11 key → glyph in Chromium", missing, "≤ 1.2× xterm.js local echo"));
            ctx.add(Row.notAvailable("12 flood in Chromium", missing, "≥ 0.8× xterm.js alone"));
            return;
        }
        int keys = ctx.options.pick(300, 60);
        long floodBytes = ctx.options.pick(20, 5) * 1_000_000L;
        int runs = ctx.options.pick(3, 2);
        // A daemon of its own: the page opens its first terminal like a person, on a daemon that runs nothing.
        String backend = ctx.backendsToMeasure().getFirst();
        JsonNode direct;
        try (LimpetDaemon daemon = ctx.freshDaemon(backend)) {
            direct = measure(e2e, daemon.url + "#token=" + daemon.token, keys, floodBytes, runs);
        }
        addRows(ctx, direct, "web UI, " + backend, keys, runs, "≤ 1.2× xterm.js local echo", "≥ 0.8× xterm.js alone");
        // The same page opened from a pairing link, as a phone reaches a host: served by a relay on
        // loopback, every message sealed end to end (WebCrypto in the page, OpenSSL in the daemon).
        Path dir = Files.createTempDirectory("limpet-bench-relay-browser-");
        Path root = dir.resolve("root");
        JsonNode relayed;
        try (LimpetRelay relay = LimpetRelay.start(ctx.jar, dir)) {
            relay.enrol(root);
            try (LimpetDaemon daemon = LimpetDaemon.start(ctx.jar, root, backend, List.of(), Map.of(), List.of("--relay", relay.url))) {
                RelayFigure.awaitGate(daemon);
                relayed = measure(e2e, relay.pair(root), keys, floodBytes, runs);
            }
        }
        addRows(ctx, relayed, "web UI through a relay on loopback, " + backend, keys, runs, "—", "—");
    }

    private static JsonNode measure(Path e2e, String url, int keys, long floodBytes, int runs) throws IOException, InterruptedException {
        Run run = node(e2e, List.of("bench/browser-figures.mjs", "--url", url, "--keys", Integer.toString(keys), "--flood-bytes",
                Long.toString(floodBytes), "--runs", Integer.toString(runs)), 600);
        if (!run.ok()) {
            throw new IOException("browser-figures.mjs failed (exit " + run.exit + "): " + run.stderrTail());
        }
        return JSON.readTree(run.stdout);
    }

    private static void addRows(BenchContext ctx, JsonNode result, String how, int keys, int runs, String keyGoal, String floodGoal) {
        String extensions = result.path("deflate").asText("unknown");
        String deflate = extensions.equals("none") ? "no permessage-deflate" : extensions;
        Measured key = new Measured(p50s(result.path("keyToGlyph").path("limpet"), runs), p50s(result.path("keyToGlyph").path("xterm"), runs));
        ctx.add(new Row("11 key → glyph in Chromium [" + how + "] p50 vs xterm.js local echo (" + keys * 9 / 10 + " keys)",
                Units.millis(key.limpetMedian()), Units.millis(key.referenceMedian()) + " (xterm.js local echo, same page)",
                Measured.ratio(key.ratio()), key.spread(), keyGoal));
        Measured blinking = new Measured(p50s(result.path("keyToGlyph").path("limpetBlinking"), runs),
                p50s(result.path("keyToGlyph").path("xterm"), runs));
        ctx.add(new Row("11 key → glyph in Chromium [" + how + ", the program asks for a blinking cursor] p50 vs xterm.js local echo",
                Units.millis(blinking.limpetMedian()), Units.millis(blinking.referenceMedian()) + " (xterm.js local echo, same page)",
                Measured.ratio(blinking.ratio()), blinking.spread(), keyGoal));
        long bytes = result.path("flood").path("bytes").asLong();
        Measured flood = new Measured(rates(bytes, result.path("flood").path("limpet")), rates(bytes, result.path("flood").path("xterm")));
        ctx.add(new Row(String.format("12 flood %d MB in Chromium [%s, %s] vs xterm.js alone", bytes / 1_000_000, how, deflate),
                Units.mbPerSecond(flood.limpetMedian()), Units.mbPerSecond(flood.referenceMedian()) + " (xterm.js alone, same page)",
                Measured.ratio(flood.ratio()), flood.spread(), floodGoal));
    }

    /** The keys in {@code runs} consecutive parts, each part's median in nanoseconds: one row value per run, as figure 2's. */
    private static List<Double> p50s(JsonNode millis, int runs) {
        List<Double> all = new ArrayList<>();
        millis.forEach(n -> all.add(n.asDouble() * 1e6));
        List<Double> out = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
            out.add(Measured.median(all.subList(r * all.size() / runs, (r + 1) * all.size() / runs)));
        }
        return out;
    }

    private static List<Double> rates(long bytes, JsonNode millis) {
        List<Double> out = new ArrayList<>();
        millis.forEach(n -> out.add(bytes / (n.asDouble() / 1000)));
        return out;
    }

    private record Run(int exit, String stdout, String stderr) {
        boolean ok() {
            return exit == 0;
        }

        String stderrTail() {
            return stderr.length() > 2000 ? stderr.substring(stderr.length() - 2000) : stderr;
        }
    }

    private static Run node(Path dir, List<String> args, int limitSeconds) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("node"));
        argv.addAll(args);
        Path out = Files.createTempFile("limpet-bench-node-", ".out");
        Path err = Files.createTempFile("limpet-bench-node-", ".err");
        try {
            Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(limitSeconds, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new IOException("node " + String.join(" ", args) + " did not finish within " + limitSeconds + " s");
            }
            return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
