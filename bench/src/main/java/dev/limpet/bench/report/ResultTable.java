package dev.limpet.bench.report;

import java.util.ArrayList;
import java.util.List;

/** The one table the benchmark prints: as aligned text for the console and as Markdown for the doc. */
public final class ResultTable {
    static final List<String> HEADER = List.of("figure", "limpet", "reference", "ratio", "spread", "goal");

    private final List<Row> rows = new ArrayList<>();

    public synchronized void add(Row row) {
        rows.add(row);
    }

    public synchronized List<Row> rows() {
        return List.copyOf(rows);
    }

    public String text() {
        List<List<String>> cells = cells();
        int[] width = new int[HEADER.size()];
        for (List<String> line : cells) {
            for (int i = 0; i < line.size(); i++) {
                width[i] = Math.max(width[i], line.get(i).codePointCount(0, line.get(i).length()));
            }
        }
        StringBuilder out = new StringBuilder();
        for (int r = 0; r < cells.size(); r++) {
            List<String> line = cells.get(r);
            for (int i = 0; i < line.size(); i++) {
                String c = line.get(i);
                out.append(c).append(" ".repeat(width[i] - c.codePointCount(0, c.length())));
                out.append(i == line.size() - 1 ? "" : "  ");
            }
            out.append(System.lineSeparator().equals("\n") ? "\n" : System.lineSeparator());
            if (r == 0) {
                for (int i = 0; i < width.length; i++) {
                    out.append("-".repeat(width[i])).append(i == width.length - 1 ? "" : "  ");
                }
                out.append('\n');
            }
        }
        return out.toString().replaceAll("(?m) +$", "");
    }

    public String markdown() {
        StringBuilder out = new StringBuilder();
        List<List<String>> cells = cells();
        for (int r = 0; r < cells.size(); r++) {
            out.append('|');
            for (String c : cells.get(r)) {
                out.append(' ').append(c.replace("|", "\\|")).append(" |");
            }
            out.append('\n');
            if (r == 0) {
                out.append("|---".repeat(HEADER.size())).append("|\n");
            }
        }
        return out.toString();
    }

    private List<List<String>> cells() {
        List<List<String>> cells = new ArrayList<>();
        cells.add(HEADER);
        for (Row r : rows()) {
            cells.add(List.of(r.figure(), r.limpet(), r.reference(), r.ratio(), r.spread(), r.goal()));
        }
        return cells;
    }
}
