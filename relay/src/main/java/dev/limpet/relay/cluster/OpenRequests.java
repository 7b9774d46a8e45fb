package dev.limpet.relay.cluster;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import dev.limpet.protocol.log.ClientErrorLog;
import dev.limpet.relay.ClientEnd;
import dev.limpet.relay.Cluster;
import dev.limpet.relay.LocalHosts;
import io.nats.client.Connection;
import io.nats.client.Message;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Both sides of opening a channel between two nodes ({@code limpet.relay.open.<node>},
 * {@link OpenMessage}). On the client's node: ask the node holding the host's uplink for a channel
 * and wire the client socket to its end. On the holder's node: check that the client's gate proof
 * answers a fresh challenge of the asking node ({@link GateChallenges}), let this node's gate
 * check the proof against the host's pairings, and wire the end to the uplink's new channel.
 * Anyone who may publish on NATS can send requests: what they get is refusals, rate-limited in the
 * log.
 */
final class OpenRequests {
    private static final Logger LOG = LoggerFactory.getLogger(OpenRequests.class);
    static final Duration OPEN_TIMEOUT = Duration.ofSeconds(3);

    private final String node;
    private final Supplier<Connection> nats;
    private final NatsPresence presence;
    private final ChannelEnds ends;
    private final GateChallenges challenges;
    /** Refused open requests, rate-limited per asking node and in all. */
    private final ClientErrorLog refusals;

    OpenRequests(String node, Clock clock, Supplier<Connection> nats, NatsPresence presence, ChannelEnds ends, GateChallenges challenges) {
        this.node = node;
        this.nats = nats;
        this.presence = presence;
        this.ends = ends;
        this.challenges = challenges;
        this.refusals = new ClientErrorLog(LOG, clock);
    }

    // ---- on the client's node

    /** Asks the node holding {@code hostId}'s uplink for a channel for {@code client}, whose answer to our {@code challenge} is {@code proof}. */
    Cluster.Opened open(String hostId, ClientEnd client, byte[] challenge, byte[] proof) {
        RouteChoice choice = RouteChoice.choose(false, presence.holder(hostId), node);
        Connection nats = this.nats.get();
        if (!(choice instanceof RouteChoice.Remote remote) || nats == null) {
            return new Cluster.Opened(null, ErrorCode.HOST_OFFLINE);
        }
        ChannelEnd end = ends.open(nats, hostId, true);
        end.sink(new ChannelEnd.Sink() {
            @Override
            public boolean deliver(ByteBuffer message, Runnable written) {
                return client.sendBinary(message, written);
            }

            @Override
            public void closed(int status, String reason) {
                ends.forget(end);
                client.close(status, reason);
            }
        });
        OpenMessage.Request request;
        try {
            request = new OpenMessage.Request(hostId, end.subject, challenge, proof, false);
        } catch (ProtocolException e) {
            ends.forget(end);
            end.closeQuietly(1008, ErrorCode.PAIRING_INVALID.wire());
            return new Cluster.Opened(null, ErrorCode.PAIRING_INVALID);
        }
        OpenMessage answer = ask(nats, remote.node(), hostId, request);
        if (!(answer instanceof OpenMessage.Opened opened)) {
            ends.forget(end);
            end.closeQuietly(1013, ErrorCode.HOST_OFFLINE.wire());
            ErrorCode refusal = answer instanceof OpenMessage.Refused r && (r.code() == ErrorCode.PAIRING_INVALID
                    || r.code() == ErrorCode.TOO_MANY_CONNECTIONS) ? r.code() : ErrorCode.HOST_OFFLINE;
            if (answer == null) {
                // No answer in time: the holder may have opened a channel whose answer was lost. Withdraw it (no reply expected).
                try {
                    nats.publish(Subjects.open(remote.node()), new OpenMessage.Request(hostId, end.subject, challenge, proof, true).encode());
                } catch (RuntimeException ignored) {
                    // NATS is down: the holder's sweep closes it once this node stops being heard
                }
            }
            return new Cluster.Opened(null, refusal);
        }
        end.peer(opened.subject());
        return new Cluster.Opened(new Cluster.RemoteChannel() {
            @Override
            public boolean send(ByteBuffer message) {
                return end.send(message);
            }

            @Override
            public void clientGone() {
                ends.forget(end);
                end.closeQuietly(1000, "client_gone");
            }
        }, null);
    }

    /** The holder's answer; null when none came in time (or it was not an answer). */
    private static OpenMessage ask(Connection nats, String holder, String hostId, OpenMessage.Request request) {
        try {
            Message reply = nats.requestWithTimeout(Subjects.open(holder), request.encode(), OPEN_TIMEOUT)
                    .get(OPEN_TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
            return reply == null || reply.getData() == null ? null : OpenMessage.decodeAnswer(reply.getData());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ProtocolException e) {
            LOG.warn("host {}: node {} answered something else than an open answer ({}); host_offline", hostId, holder,
                    SafeText.of(e.getMessage(), 100));
        } catch (Exception e) {
            // No responders (that node is gone) or no answer in time: offline for now; the client retries.
            LOG.info("host {}: node {} did not open a channel ({}); host_offline", hostId, holder, e.getClass().getSimpleName());
        }
        return null;
    }

    // ---- on the holder's node

    /** Another node asks for a channel on one of the uplinks {@code local} holds. */
    void requested(Message m, LocalHosts local) {
        OpenMessage.Request request;
        try {
            request = OpenMessage.decodeRequest(m.getData());
        } catch (ProtocolException e) {
            answer(m, new OpenMessage.Refused(ErrorCode.BAD_REQUEST));
            return;
        }
        String hostId = request.host();
        if (request.cancel()) {
            ends.withdrawn(request.subject());
            return;
        }
        GateChallenges.Verdict bound = challenges.admit(request.challenge(), request.node());
        if (bound != GateChallenges.Verdict.FRESH_AND_UNUSED) {
            // a proof replayed from NATS, or forwarded by a node that did not issue its challenge: it opens nothing
            refusals.forAddress(request.node()).info("host {}: refused an open request from node {} ({}): pairing_invalid", hostId,
                    request.node(), bound);
            answer(m, new OpenMessage.Refused(ErrorCode.PAIRING_INVALID));
            return;
        }
        ChannelEnd end = ends.open(nats.get(), hostId, false);
        end.peer(request.subject());
        LocalHosts.Opened opened = local.openChannel(hostId, new RemoteClient(end), request.challenge(), request.proof());
        if (opened.channel() < 0) {
            ends.forget(end);
            end.markGone();
            answer(m, new OpenMessage.Refused(opened.refusal()));
            return;
        }
        long channel = opened.channel();
        end.sink(new ChannelEnd.Sink() {
            @Override
            public boolean deliver(ByteBuffer message, Runnable written) {
                return local.sendToHost(channel, message, written);
            }

            @Override
            public void closed(int status, String reason) {
                ends.forget(end);
                local.channelGone(channel);
            }
        });
        answer(m, new OpenMessage.Opened(end.subject));
    }

    private void answer(Message request, OpenMessage body) {
        if (request.getReplyTo() != null) {
            nats.get().publish(request.getReplyTo(), body.encode());
        }
    }

    /** A client on another node, as the routing table of this node sees it. */
    private final class RemoteClient implements ClientEnd {
        private final ChannelEnd end;

        RemoteClient(ChannelEnd end) {
            this.end = end;
        }

        @Override
        public boolean sendBinary(ByteBuffer message) {
            return end.send(message);
        }

        @Override
        public void close(int status, String reason) {
            ends.forget(end);
            end.closeQuietly(status, reason);
        }
    }
}
