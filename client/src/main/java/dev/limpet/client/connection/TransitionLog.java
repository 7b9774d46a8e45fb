package dev.limpet.client.connection;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place connection transitions are logged, so every line carries the same fields: host,
 * hashed {@code clientSessionKey}, role, connection path, generation, from → to (event) and the typed
 * reason. DEBUG by default; raise {@code dev.limpet.client.connection} to see them.
 */
final class TransitionLog {
    private static final Logger LOG = LoggerFactory.getLogger("dev.limpet.client.connection.transitions");

    private TransitionLog() {}

    static void client(String host, String keyHash, String role, String path, long generation, ConnectionTransition t) {
        if (!LOG.isDebugEnabled()) {
            return;
        }
        LOG.debug("host={} key={} role={} path={} generation={} from={} to={} event={} attempt={} reason={}{}",
                host, keyHash, role, path, generation, t.from().wire(), t.to().wire(), t.event().wire(), t.attempt(),
                t.reason() == null ? "-" : t.reason().reason().wire(),
                t.retryIn() == null ? "" : " retry_in_ms=" + t.retryIn().toMillis());
    }

    static void host(String host, String keyHash, long generation, HostState from, HostState to, String event, DisconnectReason reason) {
        if (!LOG.isDebugEnabled()) {
            return;
        }
        LOG.debug("host={} key={} role=runtime generation={} from={} to={} event={} reason={}",
                host, keyHash, generation, from.wire(), to.wire(), event, reason == null ? "-" : reason.wire());
    }

    static void ignored(String host, String keyHash, String role, long generation, String what) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("host={} key={} role={} generation={} ignored={}", host, keyHash, role, generation, what);
        }
    }
}
