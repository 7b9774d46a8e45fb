package dev.limpet.bench.report;

import java.util.Arrays;
import java.util.List;

/** Order statistics over a handful of runs or a few thousand latency samples. */
public final class Stats {
    private Stats() {}

    /** The median (mean of the middle two for an even count). */
    public static double median(List<Double> values) {
        double[] v = sorted(values);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /** The nearest-rank percentile, {@code p} in (0, 100]. */
    public static double percentile(List<Double> values, double p) {
        if (p <= 0 || p > 100) {
            throw new IllegalArgumentException("percentile must be in (0, 100]: " + p);
        }
        double[] v = sorted(values);
        int rank = (int) Math.ceil(p / 100.0 * v.length);
        return v[Math.max(0, rank - 1)];
    }

    public static double min(List<Double> values) {
        return sorted(values)[0];
    }

    public static double max(List<Double> values) {
        double[] v = sorted(values);
        return v[v.length - 1];
    }

    /** Half the range relative to the median, in percent: 0 for one run; how far runs stray. */
    public static double halfRangePercent(List<Double> values) {
        double m = median(values);
        if (m == 0) {
            return 0;
        }
        return (max(values) - min(values)) / 2 / Math.abs(m) * 100;
    }

    private static double[] sorted(List<Double> values) {
        if (values == null || values.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        return v;
    }
}
