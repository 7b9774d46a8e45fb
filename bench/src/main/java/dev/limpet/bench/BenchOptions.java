package dev.limpet.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Command line of the bench jar: {@code [--quick] [--only FIGURE,…] [--backends NAME,…] [--repo DIR]
 * [--jar APPJAR] [--doc FILE|--no-doc] [--profile]}. {@code --backends} picks the backends the
 * figures measure (default: every available one, only the default one with --quick). A full run records its table in {@code docs/benchmarks.md};
 * {@code --quick} only prints it (unless {@code --doc} is given). {@code --profile} records the
 * daemon and its workers with JFR during the throughput figure (the directory is named on stderr).
 */
public record BenchOptions(boolean quick, List<String> only, Path repo, Path appJar, Path doc, boolean profile, List<String> backends) {

    public static BenchOptions parse(String[] args) {
        boolean quick = false;
        boolean profile = false;
        List<String> only = new ArrayList<>();
        List<String> backends = new ArrayList<>();
        Path repo = Path.of(".").toAbsolutePath().normalize();
        Path jar = null;
        Path doc = null;
        boolean noDoc = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--profile" -> profile = true;
                case "--only" -> only.addAll(List.of(args[++i].split(",")));
                case "--backends" -> backends.addAll(List.of(args[++i].split(",")));
                case "--repo" -> repo = Path.of(args[++i]).toAbsolutePath().normalize();
                case "--jar" -> jar = Path.of(args[++i]).toAbsolutePath().normalize();
                case "--doc" -> doc = Path.of(args[++i]).toAbsolutePath().normalize();
                case "--no-doc" -> noDoc = true;
                case "-h", "--help" -> {
                    System.out.println("usage: limpet bench [--quick] [--only throughput,echo,spawn,memory,recovery,reattach,viewers,micro,verbs,relay,browser] "
                            + "[--backends worker,embedded] [--no-doc] [--profile]");
                    System.exit(0);
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (try --help)");
            }
        }
        if (jar == null) {
            jar = repo.resolve("app/target/limpet.jar");
        }
        // A --quick run (the CI smoke test) prints its table but leaves the recorded full run alone unless --doc is given.
        if (doc == null && !noDoc && !quick) {
            doc = repo.resolve("docs/benchmarks.md");
        }
        return new BenchOptions(quick, List.copyOf(only), repo, jar, noDoc ? null : doc, profile, List.copyOf(backends));
    }

    public boolean wants(String figure) {
        return only.isEmpty() || only.contains(figure);
    }

    /** {@code full} in a full run, {@code quick} with --quick. */
    public int pick(int full, int quickValue) {
        return quick ? quickValue : full;
    }
}
