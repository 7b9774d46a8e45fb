package dev.limpet.bench.report;

/**
 * One line of the result table. Cells are already formatted; {@code ratio} is limpet ÷ reference
 * (or "—" when there is no reference), {@code spread} says how far the runs strayed.
 */
public record Row(String figure, String limpet, String reference, String ratio, String spread, String goal) {

    /** A figure that could not be measured in this run, with the reason in place of numbers. */
    public static Row notAvailable(String figure, String why, String goal) {
        return new Row(figure, "n/a: " + why, "—", "—", "—", goal);
    }
}
