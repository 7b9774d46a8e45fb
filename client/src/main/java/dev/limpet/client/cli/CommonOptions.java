package dev.limpet.client.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Options every client verb takes to find its daemon. */
public final class CommonOptions {
    @Option(names = "--data-root", paramLabel = "DIR", description = "The daemon's data root (default: $LIMPET_HOME or ~/.limpet).")
    public Path dataRoot;

    @Option(names = "--url", paramLabel = "URL", description = "The daemon's URL (default: $LIMPET_URL); its token comes from $LIMPET_TOKEN.")
    public String url;

    @Option(names = "--host", paramLabel = "NAME", description = "A daemon named in ~/.config/limpet/hosts.json.")
    public String host;

    @Option(names = "--json", description = "Print JSON (a stable contract, see docs/cli.md).")
    public boolean json;
}
