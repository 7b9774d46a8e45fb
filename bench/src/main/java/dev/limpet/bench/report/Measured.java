package dev.limpet.bench.report;

import java.util.List;
import java.util.Locale;

/**
 * Runs of one quantity on both sides of a comparison, turned into a table row: medians, ratio of
 * the medians, and the spread of each side as ± half the range (n runs).
 */
public record Measured(List<Double> limpet, List<Double> reference) {

    public double limpetMedian() {
        return Stats.median(limpet);
    }

    public double referenceMedian() {
        return Stats.median(reference);
    }

    public double ratio() {
        return limpetMedian() / referenceMedian();
    }

    /** {@code "±3% / ±1% (n=5)"}. */
    public String spread() {
        return String.format(Locale.ROOT, "±%.0f%% / ±%.0f%% (n=%d/%d)", Stats.halfRangePercent(limpet),
                Stats.halfRangePercent(reference), limpet.size(), reference.size());
    }

    public static double median(List<Double> runs) {
        return Stats.median(runs);
    }

    public static String ratio(double r) {
        return String.format(Locale.ROOT, "%.2f×", r);
    }

    public static String spreadOf(List<Double> runs) {
        return String.format(Locale.ROOT, "±%.0f%% (n=%d)", Stats.halfRangePercent(runs), runs.size());
    }
}
