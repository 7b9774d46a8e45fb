package dev.limpet.bench.figures;

import dev.limpet.bench.BenchContext;

/** One figure of the benchmark: measures and adds its rows to the context's table. */
public interface Figure {
    /** The name {@code --only} selects it by. */
    String name();

    void run(BenchContext ctx) throws Exception;
}
