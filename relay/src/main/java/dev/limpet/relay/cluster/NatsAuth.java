package dev.limpet.relay.cluster;

import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PathTrust.Exposure;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * How a relay node proves itself to NATS ({@code --nats-credentials FILE}, 0600, ours): whoever may
 * publish on the cluster's NATS can move hosts between nodes and open channels, so a node never
 * connects without credentials unless told so ({@code --insecure-nats}). The file holds one of:
 * <ul>
 *   <li>a NATS credentials file (a user JWT and its nkey seed, as {@code nsc} writes it);</li>
 *   <li>an nkey seed ({@code SU…}, one line);</li>
 *   <li>{@code user=NAME} and {@code password=SECRET} lines.</li>
 * </ul>
 * {@link #toString()} never shows a secret.
 */
public sealed interface NatsAuth {
    /** No credentials: {@code --insecure-nats}, for a NATS nobody else can reach (its operator said so). */
    record None() implements NatsAuth {}

    record UserPassword(String user, char[] password) implements NatsAuth {
        @Override
        public String toString() {
            return "user " + user;
        }
    }

    /** An nkey seed, or a credentials file's bytes (JWT and seed). */
    record Keys(byte[] creds, char[] seed) implements NatsAuth {
        @Override
        public String toString() {
            return creds != null ? "a credentials file" : "an nkey";
        }
    }

    /** Reads {@code file} after the data root's rule for secrets (ours, 0600, no link). */
    static NatsAuth load(Path file) throws IOException {
        byte[] bytes = PathTrust.forThisProcess().readTrusted(file, Exposure.SECRET, 64 * 1024);
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.contains("-----BEGIN NATS USER JWT-----")) {
            return new Keys(bytes, null);
        }
        String s = text.strip();
        if (s.matches("SU[A-Z2-7]{50,120}")) {
            return new Keys(null, s.toCharArray());
        }
        String user = null;
        String password = null;
        for (String line : text.split("\n")) {
            String l = line.strip();
            if (l.startsWith("user=")) {
                user = l.substring(5);
            } else if (l.startsWith("password=")) {
                password = l.substring(9);
            }
        }
        if (user == null || user.isEmpty() || password == null || password.isEmpty()) {
            throw new IOException(file + " holds no NATS credentials: a credentials file (JWT and seed), an nkey seed (SU…), or the "
                    + "two lines user=NAME and password=SECRET");
        }
        return new UserPassword(user, password.toCharArray());
    }

    /** Adds these credentials to a connection's options. */
    default Options.Builder applyTo(Options.Builder options) {
        return switch (this) {
            case None n -> options;
            case UserPassword u -> options.userInfo(u.user().toCharArray(), u.password());
            case Keys k -> options.authHandler(k.creds() != null ? Nats.staticCredentials(k.creds()) : Nats.staticCredentials(null, k.seed()));
        };
    }
}
