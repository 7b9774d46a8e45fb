package dev.limpet.app;

import dev.limpet.client.connection.ClientIdentityException;
import dev.limpet.client.connection.HostsConfig;
import dev.limpet.daemon.gateway.CockpitHost;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The daemon's user's hosts.json, as the page the daemon serves reaches them: read through
 * {@link HostsConfig} (the one reader of that file, with its checks) on every request, each
 * entry's token or pairing secret read from its file. An entry whose credential cannot be read is
 * left out and named in the listing's problems; the others still show.
 */
final class HostsFileForPage implements CockpitHost.Source {
    private final Supplier<Path> file;

    HostsFileForPage(Supplier<Path> file) {
        this.file = file;
    }

    @Override
    public CockpitHost.Listing read() {
        List<CockpitHost> hosts = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<HostsConfig.HostEntry> entries;
        try {
            entries = HostsConfig.load(file.get()).all();
        } catch (ClientIdentityException | IllegalStateException e) {
            return new CockpitHost.Listing(List.of(), List.of(e.getMessage()));
        }
        for (HostsConfig.HostEntry h : entries) {
            try {
                String url = h.url().toString().replaceAll("/+$", "");
                hosts.add(h.relay() ? CockpitHost.relay(h.name(), url, h.readSecret().encoded()) : CockpitHost.direct(h.name(), url, h.readToken()));
            } catch (ClientIdentityException e) {
                problems.add(e.getMessage());
            }
        }
        return new CockpitHost.Listing(hosts, problems);
    }
}
