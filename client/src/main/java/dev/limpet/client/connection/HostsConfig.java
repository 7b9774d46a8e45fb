package dev.limpet.client.connection;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.limpet.protocol.relay.PairingSecret;
import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PathTrust.Exposure;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The hosts a client knows: {@code ~/.config/limpet/hosts.json} =
 * {@code {"hosts":[{"name":"laptop","url":"http://127.0.0.1:7420","token_file":"~/.limpet/auth-token"}]}}.
 * Names are unique; {@code url} is an absolute http(s) URL; {@code token_file} may start with
 * {@code ~/} and, when relative, is resolved against the directory of hosts.json. A missing file is
 * an empty configuration; anything malformed is a {@link ClientIdentityException} naming the file,
 * the entry and the field.
 */
public final class HostsConfig {
    /** File name inside the config directory. */
    public static final String FILE_NAME = "hosts.json";
    private static final int MAX_FILE_BYTES = 1 << 20;

    /**
     * One configured host: reached directly ({@code url} + {@code token_file}) or through a relay
     * ({@code relay}: the pairing link's address {@code http(s)://relay/h/<hostId>}, held in
     * {@code url}, + {@code secret_file}: the pairing secret, 0600).
     */
    public record HostEntry(String name, URI url, Path tokenFile, Path secretFile) {
        public HostEntry(String name, URI url, Path tokenFile) {
            this(name, url, tokenFile, null);
        }

        /** Whether this host is reached through a relay. */
        public boolean relay() {
            return secretFile != null;
        }

        /** Reads the pairing secret from {@link #secretFile()}; a missing, unreadable or malformed file is an error naming it. */
        public PairingSecret readSecret() {
            try {
                return PairingSecret.parse(readTrusted(secretFile, Exposure.SECRET));
            } catch (IOException e) {
                throw new ClientIdentityException("cannot read the pairing secret " + secretFile + " of host '" + name + "': " + e, e);
            } catch (IllegalArgumentException e) {
                throw new ClientIdentityException("the pairing secret " + secretFile + " of host '" + name + "' is malformed: " + e.getMessage());
            }
        }

        /** Reads the token from {@link #tokenFile()}; a missing, unreadable or empty file is an error naming it. */
        public String readToken() {
            try {
                String token = readTrusted(tokenFile, Exposure.SECRET).strip();
                if (token.isEmpty()) {
                    throw new ClientIdentityException("token file " + tokenFile + " of host '" + name + "' is empty");
                }
                return token;
            } catch (IOException e) {
                throw new ClientIdentityException("cannot read token file " + tokenFile + " of host '" + name + "': " + e, e);
            }
        }
    }

    private final Path source;
    private final List<HostEntry> hosts;

    private HostsConfig(Path source, List<HostEntry> hosts) {
        this.source = source;
        this.hosts = List.copyOf(hosts);
    }

    /** The default location: {@code <config dir>/hosts.json}. */
    public static Path defaultPath() {
        return ConfigDirs.limpetConfigDir().resolve(FILE_NAME);
    }

    /** Loads {@code file}; a missing file gives an empty configuration. */
    public static HostsConfig load(Path file) {
        String json;
        try {
            json = readTrusted(file, Exposure.SETTINGS);
        } catch (NoSuchFileException e) {
            return new HostsConfig(file, List.of());
        } catch (IOException e) {
            throw new ClientIdentityException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return parse(file, json);
    }

    static HostsConfig parse(Path file, String json) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(json);
        } catch (JsonProcessingException e) {
            throw error(file, "is not valid JSON (line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + ")");
        }
        if (root == null || !root.isObject()) {
            throw error(file, "must be a JSON object like {\"hosts\":[…]}");
        }
        JsonNode list = root.get("hosts");
        if (list == null || !list.isArray()) {
            throw error(file, "needs a \"hosts\" array");
        }
        List<HostEntry> hosts = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            HostEntry entry = entry(file, i, list.get(i));
            if (!names.add(entry.name())) {
                throw error(file, "hosts[" + i + "]: the name '" + entry.name() + "' is used twice");
            }
            hosts.add(entry);
        }
        return new HostsConfig(file, hosts);
    }

    private static HostEntry entry(Path file, int index, JsonNode node) {
        String where = "hosts[" + index + "]";
        if (!node.isObject()) {
            throw error(file, where + " must be an object with \"name\", \"url\" and \"token_file\"");
        }
        String name = text(file, where, node, "name");
        where = where + " ('" + name + "')";
        if (node.has("relay")) {
            String relay = text(file, where, node, "relay");
            String secretFile = text(file, where, node, "secret_file");
            return new HostEntry(name, parseUrl(file, where, relay), null, resolveTokenFile(file, secretFile));
        }
        String url = text(file, where, node, "url");
        String tokenFile = text(file, where, node, "token_file");
        return new HostEntry(name, parseUrl(file, where, url), resolveTokenFile(file, tokenFile));
    }

    private static String text(Path file, String where, JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw error(file, where + ": \"" + field + "\" is missing");
        }
        if (!value.isTextual() || value.asText().isBlank()) {
            throw error(file, where + ": \"" + field + "\" must be a non-empty string");
        }
        return value.asText().strip();
    }

    private static URI parseUrl(Path file, String where, String url) {
        try {
            URI uri = new URI(url);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
                throw error(file, where + ": \"url\" must be an absolute http:// or https:// URL, got '" + url + "'");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw error(file, where + ": \"url\" is not a URL: " + e.getMessage());
        }
    }

    private static Path resolveTokenFile(Path file, String tokenFile) {
        if (tokenFile.equals("~") || tokenFile.startsWith("~/")) {
            return Path.of(System.getProperty("user.home")).resolve(tokenFile.substring(Math.min(2, tokenFile.length())));
        }
        Path path = Path.of(tokenFile);
        if (path.isAbsolute()) {
            return path;
        }
        Path dir = file.toAbsolutePath().getParent();
        return dir == null ? path.toAbsolutePath() : dir.resolve(path);
    }

    /**
     * hosts.json says which address and secret stand for a host, and its token and secret files
     * are credentials: each is read only when nobody else could have written it (and a secret only
     * when nobody else can read it), checked on every read.
     */
    private static String readTrusted(Path file, Exposure exposure) throws IOException {
        return PathTrust.forThisProcess().readTrustedString(file, exposure, MAX_FILE_BYTES);
    }

    private static ClientIdentityException error(Path file, String problem) {
        return new ClientIdentityException(file + " " + problem);
    }

    /**
     * Adds (or replaces) a relay host in {@code file}: the pairing's address and its secret, written
     * to {@code <dir of file>/pairings/<name>} (0600, directory 0700). Other entries are kept as they are.
     */
    public static Path addRelayHost(Path file, String name, URI hostUrl, PairingSecret secret) throws IOException {
        if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
            throw new ClientIdentityException("a host name is 1-64 of [A-Za-z0-9._-], starting with a letter or digit: '" + name + "'");
        }
        Path dir = file.toAbsolutePath().getParent();
        PrivateFiles.directory(dir);
        Path secrets = PrivateFiles.directory(dir.resolve("pairings"));
        Path secretFile = secrets.resolve(name);
        PrivateFiles.writeAtomically(secretFile, secret.encoded() + "\n");
        ObjectMapper json = new ObjectMapper();
        ObjectNode root;
        if (Files.exists(file)) {
            load(file); // refuses a malformed file before we touch it
            root = (ObjectNode) json.readTree(readTrusted(file, Exposure.SETTINGS));
        } else {
            root = json.createObjectNode();
            root.putArray("hosts");
        }
        ArrayNode kept = json.createArrayNode();
        for (JsonNode h : root.get("hosts")) {
            if (!name.equals(h.path("name").asText())) {
                kept.add(h);
            }
        }
        ObjectNode entry = kept.addObject();
        entry.put("name", name);
        entry.put("relay", hostUrl.toString());
        entry.put("secret_file", "pairings/" + name);
        root.set("hosts", kept);
        PrivateFiles.writeAtomically(file, json.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
        return secretFile;
    }

    /** The file this configuration came from (it may not exist). */
    public Path source() {
        return source;
    }

    /** Every host, in file order. */
    public List<HostEntry> all() {
        return hosts;
    }

    /** The host called {@code name}, if configured. */
    public Optional<HostEntry> find(String name) {
        return hosts.stream().filter(h -> h.name().equals(name)).findFirst();
    }

    /** The host called {@code name}, or an error listing the configured names. */
    public HostEntry require(String name) {
        return find(name).orElseThrow(() -> new ClientIdentityException(hosts.isEmpty()
                ? "unknown host '" + name + "': no hosts configured in " + source
                : "unknown host '" + name + "' (configured in " + source + ": "
                        + String.join(", ", hosts.stream().map(HostEntry::name).toList()) + ")"));
    }
}
