package dev.limpet.bench.report;

import java.util.Locale;

/** Formats numbers the way the table shows them. */
public final class Units {
    private Units() {}

    public static String mbPerSecond(double bytesPerSecond) {
        return String.format(Locale.ROOT, "%.1f MB/s", bytesPerSecond / 1e6);
    }

    public static String micros(double nanos) {
        return String.format(Locale.ROOT, "%.0f µs", nanos / 1e3);
    }

    public static String millis(double nanos) {
        double ms = nanos / 1e6;
        return String.format(Locale.ROOT, ms < 10 ? "%.2f ms" : "%.1f ms", ms);
    }

    public static String megabytes(double kilobytes) {
        if (Math.abs(kilobytes) < 1024) {
            return String.format(Locale.ROOT, "%.0f kB", kilobytes);
        }
        return String.format(Locale.ROOT, "%.1f MB", kilobytes / 1024);
    }

    public static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }
}
