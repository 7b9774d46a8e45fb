package dev.limpet.client.cli;

import dev.limpet.client.connection.ClientIdentityException;
import dev.limpet.client.connection.HostsConfig;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/** Endpoints from {@code ~/.config/limpet/hosts.json}, as client verbs need them. */
final class HostsFile {
    private HostsFile() {}

    static DaemonEndpoint endpoint(String name) {
        try {
            HostsConfig.HostEntry h = HostsConfig.load(HostsConfig.defaultPath()).require(name);
            return toEndpoint(h);
        } catch (ClientIdentityException e) {
            throw new CliException(CliException.NO_DAEMON, e.getMessage());
        }
    }

    /** Every configured host; a host whose token cannot be read is reported, not skipped silently. */
    static List<DaemonEndpoint> all() {
        try {
            List<DaemonEndpoint> out = new ArrayList<>();
            for (HostsConfig.HostEntry h : HostsConfig.load(HostsConfig.defaultPath()).all()) {
                out.add(toEndpoint(h));
            }
            return out;
        } catch (ClientIdentityException e) {
            throw new CliException(CliException.NO_DAEMON, e.getMessage());
        }
    }

    private static DaemonEndpoint toEndpoint(HostsConfig.HostEntry h) {
        String url = h.url().toString();
        if (h.relay()) {
            return new DaemonEndpoint(h.name(), URI.create(url.endsWith("/") ? url : url + "/"), null, null, h.readSecret());
        }
        return new DaemonEndpoint(h.name(), URI.create(url.endsWith("/") ? url : url + "/"), h.readToken(), null);
    }
}
