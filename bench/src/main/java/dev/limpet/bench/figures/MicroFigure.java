package dev.limpet.bench.figures;

import dev.limpet.bench.BenchContext;
import dev.limpet.bench.micro.OutputLogBenchmark;
import dev.limpet.bench.micro.ProtocolBenchmark;
import dev.limpet.bench.micro.VtBenchmark;
import dev.limpet.bench.report.Measured;
import dev.limpet.bench.report.Row;
import dev.limpet.bench.report.Units;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/** Figure 8: JMH micro-benchmarks of the output log, the VT model and the protocol codec. */
public final class MicroFigure implements Figure {
    @Override
    public String name() {
        return "micro";
    }

    @Override
    public void run(BenchContext ctx) throws Exception {
        boolean quick = ctx.options.quick();
        Options opts = new OptionsBuilder()
                .include("dev\\.limpet\\.bench\\.micro\\..*")
                .forks(quick ? 0 : 1)
                .warmupIterations(1).warmupTime(TimeValue.milliseconds(quick ? 150 : 1000))
                .measurementIterations(quick ? 2 : 4).measurementTime(TimeValue.milliseconds(quick ? 200 : 1000))
                .verbosity(VerboseMode.SILENT)
                .shouldFailOnError(true)
                .build();
        Map<String, Result<?>> r = new HashMap<>();
        for (RunResult rr : new Runner(opts).run()) {
            String name = rr.getParams().getBenchmark();
            r.put(name.substring(name.lastIndexOf('.') + 1), rr.getPrimaryResult());
        }
        ctx.add(bytesRow("8 micro OutputLog.append 4 KiB (1 MiB ring)", r.get("append4k"), r.get("append4kArraycopy"),
                OutputLogBenchmark.APPEND));
        ctx.add(bytesRow("8 micro OutputLog.read 64 KiB", r.get("read64k"), r.get("read64kArraycopy"), OutputLogBenchmark.READ));
        ctx.add(bytesRow("8 micro VT feed 64 KiB mixed output (80×24)", r.get("feed64k"), null, VtBenchmark.OUTPUT.length));
        ctx.add(opsRow("8 micro VT snapshot, full screen + 1000 lines", r.get("snapshotFull"), null));
        ctx.add(bytesRow("8 micro Frame.encode 16 KiB output", r.get("encodeOutput16k"), r.get("encodeOutput16kArraycopy"),
                ProtocolBenchmark.PAYLOAD));
        ctx.add(bytesRow("8 micro Frame.decode 16 KiB output", r.get("decodeOutput16k"), r.get("encodeOutput16kArraycopy"),
                ProtocolBenchmark.PAYLOAD));
        ctx.add(opsRow("8 micro pty_input JSON decode", r.get("decodeKeystroke"), null));
        ctx.add(opsRow("8 micro pty_input JSON encode", r.get("encodeKeystroke"), null));
    }

    private static Row bytesRow(String figure, Result<?> limpet, Result<?> floor, int bytesPerOp) {
        String ref = floor == null ? "—" : Units.mbPerSecond(floor.getScore() * bytesPerOp) + " (arraycopy)";
        String ratio = floor == null ? "—" : Measured.ratio(limpet.getScore() / floor.getScore());
        return new Row(figure, Units.mbPerSecond(limpet.getScore() * bytesPerOp), ref, ratio, error(limpet, floor), "—");
    }

    private static Row opsRow(String figure, Result<?> limpet, Result<?> floor) {
        return new Row(figure, String.format(Locale.ROOT, "%,.0f ops/s", limpet.getScore()), "—", "—", error(limpet, floor), "—");
    }

    private static String error(Result<?> limpet, Result<?> floor) {
        String s = "±" + pct(limpet) + "%";
        if (floor != null) {
            s += " / ±" + pct(floor) + "%";
        }
        return s + " (JMH 99.9% CI)";
    }

    private static String pct(Result<?> r) {
        double e = r.getScoreError();
        return Double.isNaN(e) ? "?" : String.format(Locale.ROOT, "%.0f", e / r.getScore() * 100);
    }
}
