package dev.limpet.client.cli;

import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.UnsafePathException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Finds the daemon a verb talks to: {@code --url}/{@code LIMPET_URL} with {@code LIMPET_TOKEN};
 * else {@code --host NAME} from hosts.json; else the data root's {@code daemon.json} and
 * {@code auth-token} ({@code --data-root}, {@code LIMPET_HOME}, {@code ~/.limpet}).
 */
public final class DaemonLocator {
    private DaemonLocator() {}

    public static DaemonEndpoint locate(CommonOptions options) {
        String url = options.url != null ? options.url : System.getenv("LIMPET_URL");
        if (url != null && !url.isBlank()) {
            String token = System.getenv("LIMPET_TOKEN");
            if (token == null || token.isBlank()) {
                throw new CliException(CliException.NO_DAEMON, "--url/LIMPET_URL needs the daemon's token in LIMPET_TOKEN");
            }
            return new DaemonEndpoint(URI.create(url).getHost(), normalise(url), token.strip(), null);
        }
        if (options.host != null) {
            return HostsFile.endpoint(options.host);
        }
        return fromDataRoot(dataRoot(options.dataRoot));
    }

    public static Path dataRoot(Path explicit) {
        if (explicit != null) {
            return explicit.toAbsolutePath();
        }
        String env = System.getenv("LIMPET_HOME");
        if (env != null && !env.isBlank()) {
            return Path.of(env).toAbsolutePath();
        }
        return Path.of(System.getProperty("user.home"), ".limpet");
    }

    /** The daemon of data root {@code root} (its daemon.json and token), for commands outside this package. */
    public static DaemonEndpoint fromDataRootOf(Path root) {
        return fromDataRoot(root);
    }

    static DaemonEndpoint fromDataRoot(Path root) {
        return fromDataRoot(root, PathTrust.forThisProcess());
    }

    /**
     * Reads the address and the token only from a data root of ours: one another user prepared
     * (or could have filled) would send our keystrokes to their daemon and show us their output.
     */
    static DaemonEndpoint fromDataRoot(Path root, PathTrust trust) {
        Path info = root.resolve("daemon.json");
        Path tokenFile = root.resolve("auth-token");
        JsonTree json;
        try {
            trust.existingPrivateDirectory(root);
            trust.ownFileIfPresent(info);
            trust.ownFileIfPresent(tokenFile);
            json = JsonTree.parse(Files.readString(info));
        } catch (NoSuchFileException e) {
            throw noDaemon(root.toString());
        } catch (UnsafePathException e) {
            throw new CliException(CliException.FAILED, "refusing to use the daemon described in " + root + ": " + e.getMessage());
        } catch (IOException e) {
            throw new CliException(CliException.NO_DAEMON, "cannot read " + info + ": " + e.getMessage());
        }
        String url = json.path("url").text(null);
        if (url == null) {
            throw new CliException(CliException.NO_DAEMON, info + " has no url; is it a limpet daemon.json?");
        }
        String token;
        try {
            token = Files.readString(tokenFile).strip();
        } catch (IOException e) {
            throw new CliException(CliException.NO_DAEMON, "cannot read the daemon's token at " + tokenFile
                    + ": " + e.getMessage());
        }
        return new DaemonEndpoint("local", normalise(url), token, json.path("daemon_instance_id").text(null));
    }

    static CliException noDaemon(String where) {
        return new CliException(CliException.NO_DAEMON, "no limpet daemon at " + where + "; start one with `limpet daemon`");
    }

    private static URI normalise(String url) {
        return URI.create(url.endsWith("/") ? url : url + "/");
    }
}
