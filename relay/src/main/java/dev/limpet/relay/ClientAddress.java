package dev.limpet.relay;

import java.net.InetAddress;

/**
 * The address a client came from, for limits and logs. A relay runs behind a TLS reverse proxy on
 * the same machine (docs/relay.md), so a socket from loopback is the proxy speaking for someone:
 * then the last {@code X-Forwarded-For} entry (the one that proxy appended) names the client.
 * From anywhere else the header is the client's own word and is ignored.
 */
final class ClientAddress {
    private ClientAddress() {}

    static String of(String peerIp, String forwardedFor) {
        if (peerIp == null) {
            return "?";
        }
        if (forwardedFor == null || forwardedFor.isBlank() || !loopback(peerIp)) {
            return peerIp;
        }
        String last = forwardedFor.substring(forwardedFor.lastIndexOf(',') + 1).strip();
        return last.matches("[0-9A-Fa-f.:\\[\\]]{2,64}") ? last : peerIp;
    }

    private static boolean loopback(String ip) {
        try {
            return InetAddress.ofLiteral(ip.startsWith("[") ? ip.substring(1, ip.length() - 1) : ip).isLoopbackAddress();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
