package dev.limpet.client.attach;

import java.util.Objects;

/**
 * What {@code limpet attach} was asked to do.
 *
 * @param sessionRef the session id or label given on the command line
 * @param hostName the host's name for messages ({@code reconnecting to HOST…})
 * @param location where the daemon was looked for, for the "no daemon" message
 * @param expectedDaemonId the {@code daemon_instance_id} the session belongs to, if known in advance
 */
public record AttachSettings(
        String sessionRef,
        String hostName,
        String location,
        String expectedDaemonId,
        boolean readOnly,
        DetachKey detachKey,
        boolean reconnect) {
    public AttachSettings {
        Objects.requireNonNull(sessionRef, "sessionRef");
        Objects.requireNonNull(hostName, "hostName");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(detachKey, "detachKey");
    }
}
