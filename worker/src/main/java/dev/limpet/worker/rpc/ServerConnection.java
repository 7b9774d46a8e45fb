package dev.limpet.worker.rpc;

import dev.limpet.protocol.worker.WorkerCodec;
import dev.limpet.worker.WorkerLog;
import dev.limpet.protocol.worker.WorkerEnvelope;
import dev.limpet.protocol.worker.WorkerErrorCode;
import dev.limpet.protocol.worker.WorkerPayloads;
import dev.limpet.protocol.worker.WorkerRpc;
import dev.limpet.protocol.worker.WorkerRpcException;
import dev.limpet.terminal.pty.ExitStatus;
import dev.limpet.terminal.pty.Signal;
import dev.limpet.terminal.session.PtySession;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One daemon connection to the worker: hello first (anything else, or a failed hello, closes it
 * with a canonical code), then requests in order. An attachment streams {@code output} events on
 * this connection; {@code watch} adds {@code state}/{@code exit} events.
 */
public final class ServerConnection implements ServedSession.Watcher {
    private static final AtomicInteger NUMBERS = new AtomicInteger();

    private final ServedSession served;
    private final LineChannel lines;
    private final Outbound out;
    private final String name;
    private boolean authenticated;
    private PtySession.Subscription subscription;
    private boolean watching;
    // Live output that arrives between registering the listener and queueing the attach answer.
    private final Object attachLock = new Object();
    private List<Object[]> held;

    private ServerConnection(ServedSession served, SocketChannel channel) {
        this.served = served;
        this.name = Integer.toString(NUMBERS.incrementAndGet());
        this.lines = new LineChannel(channel, 1 << 20);
        this.out = new Outbound(lines, name);
    }

    /** Serves {@code channel} on a new platform thread. */
    public static void start(ServedSession served, SocketChannel channel) {
        ServerConnection c = new ServerConnection(served, channel);
        Thread.ofPlatform().daemon().stackSize(256 * 1024).name("rpc-read-" + c.name).start(c::serve);
    }

    private void serve() {
        try {
            while (true) {
                String line = lines.readLine();
                WorkerEnvelope env;
                try {
                    env = WorkerCodec.decode(line);
                } catch (WorkerRpcException e) {
                    out.line(WorkerCodec.encode(WorkerCodec.failure(0, e.code(), e.getMessage())));
                    continue;
                }
                if (!(env instanceof WorkerEnvelope.Request req)) {
                    out.line(WorkerCodec.encode(WorkerCodec.failure(0, WorkerErrorCode.BAD_REQUEST, "only requests are accepted")));
                    continue;
                }
                if (!handle(req)) {
                    break;
                }
            }
        } catch (EOFException e) {
            // the daemon went away (restart, detach): normal
        } catch (IOException | RuntimeException e) {
            WorkerLog.info("connection {} ended: {}", name, e.toString());
        } finally {
            end();
        }
    }

    /** @return false to close the connection */
    private boolean handle(WorkerEnvelope.Request req) {
        try {
            if (!authenticated) {
                if (!WorkerRpc.HELLO.equals(req.method())) {
                    throw new WorkerRpcException(WorkerErrorCode.UNAUTHORIZED, "hello first");
                }
                answer(req, hello(WorkerCodec.read(req.params(), WorkerPayloads.Hello.class)));
                return true;
            }
            if (!WorkerRpc.methods(served.rpcMinor()).contains(req.method())) {
                throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "unknown method '" + req.method() + "'");
            }
            switch (req.method()) {
                case WorkerRpc.HELLO -> throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "hello was already done");
                case WorkerRpc.INFO -> answer(req, served.info());
                case WorkerRpc.HEALTH -> answer(req, new WorkerPayloads.HealthResult(true, ProcessHandle.current().pid()));
                case WorkerRpc.ATTACH -> attach(req, WorkerCodec.read(req.params(), WorkerPayloads.AttachParams.class).since());
                case WorkerRpc.DETACH -> {
                    detach();
                    answer(req, new WorkerPayloads.Empty());
                }
                case WorkerRpc.INPUT -> {
                    byte[] data = WorkerCodec.read(req.params(), WorkerPayloads.InputParams.class).data();
                    running().write(data == null ? new byte[0] : data);
                    answer(req, new WorkerPayloads.Empty());
                }
                case WorkerRpc.RESIZE -> {
                    WorkerPayloads.ResizeParams p = WorkerCodec.read(req.params(), WorkerPayloads.ResizeParams.class);
                    try {
                        running().resize(p.cols(), p.rows());
                    } catch (IllegalArgumentException e) {
                        throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, e.getMessage());
                    }
                    served.resized();
                    answer(req, new WorkerPayloads.Empty());
                }
                case WorkerRpc.SIGNAL -> {
                    Signal s;
                    try {
                        s = Signal.parse(WorkerCodec.read(req.params(), WorkerPayloads.SignalParams.class).signal());
                    } catch (IllegalArgumentException e) {
                        throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, e.getMessage());
                    }
                    running().signal(s);
                    answer(req, new WorkerPayloads.Empty());
                }
                case WorkerRpc.CAPTURE -> answer(req, new WorkerPayloads.CaptureResult(served.session().captureText()));
                case WorkerRpc.WATCH -> {
                    if (!watching) {
                        watching = true;
                        served.watch(this);
                    }
                    answer(req, served.info());
                }
                case WorkerRpc.REMOVE -> {
                    answer(req, new WorkerPayloads.Empty());
                    served.remove(out::flush);
                    return false;
                }
                default -> throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "unknown method '" + req.method() + "'");
            }
            return true;
        } catch (WorkerRpcException e) {
            out.line(WorkerCodec.encode(WorkerCodec.failure(req.id(), e.code(), e.getMessage())));
            // A failed handshake ends the connection: nothing else is served to an unknown peer.
            return authenticated;
        } catch (IOException e) {
            out.line(WorkerCodec.encode(WorkerCodec.failure(req.id(), WorkerErrorCode.IO_ERROR, e.getMessage())));
            return true;
        } catch (RuntimeException e) {
            WorkerLog.warn("connection {}: {} failed: {}", name, req.method(), e);
            out.line(WorkerCodec.encode(WorkerCodec.failure(req.id(), WorkerErrorCode.INTERNAL_ERROR, e.toString())));
            return true;
        }
    }

    private WorkerPayloads.HelloResult hello(WorkerPayloads.Hello h) {
        if (h.rpcMajor() != WorkerRpc.RPC_MAJOR) {
            throw new WorkerRpcException(WorkerErrorCode.UNSUPPORTED_VERSION, "this worker speaks rpc major "
                    + WorkerRpc.RPC_MAJOR + ", not " + h.rpcMajor());
        }
        served.authenticate(h);
        authenticated = true;
        served.connectionOpened();
        if (h.ownerPid() != null) {
            served.adoptOwner(h);
        }
        return served.helloResult();
    }

    private PtySession running() {
        PtySession s = served.session();
        if (!s.running()) {
            throw new WorkerRpcException(WorkerErrorCode.SESSION_NOT_RUNNING, "session " + s.id() + " has exited");
        }
        return s;
    }

    private void attach(WorkerEnvelope.Request req, long since) {
        detach();
        PtySession s = served.session();
        synchronized (attachLock) {
            held = new ArrayList<>();
        }
        PtySession.Subscription sub = s.attach(since, new PtySession.Listener() {
            @Override
            public void onOutput(byte[] data, long endOffset) {
                synchronized (attachLock) {
                    if (held != null) {
                        held.add(new Object[] {data, endOffset});
                        return;
                    }
                }
                if (!out.output(data, endOffset)) {
                    WorkerLog.warn("connection {}: the daemon stopped reading; dropped it (it re-attaches with since)", name);
                }
            }

            @Override
            public void onExit(ExitStatus status) {
                if (!watching) {
                    exitEvent(status);
                }
            }
        });
        subscription = sub;
        served.attachedChanged(1);
        PtySession.Replay r = sub.replay();
        answer(req, new WorkerPayloads.AttachResult(served.info(), r.replayFrom(), r.data(), r.truncated(), r.snapshot()));
        synchronized (attachLock) {
            for (Object[] h : held) {
                out.output((byte[]) h[0], (long) h[1]);
            }
            held = null;
        }
    }

    private void detach() {
        PtySession.Subscription sub = subscription;
        if (sub != null) {
            subscription = null;
            sub.close();
            served.attachedChanged(-1);
        }
    }

    private void answer(WorkerEnvelope.Request req, Object result) {
        out.line(WorkerCodec.encode(WorkerCodec.success(req.id(), result)));
    }

    private void exitEvent(ExitStatus status) {
        out.line(WorkerCodec.encode(WorkerCodec.event(WorkerRpc.EVENT_EXIT, new WorkerPayloads.ExitEvent(status.exitCode(),
                status.signal(), served.session().endOffset()))));
    }

    @Override
    public void state(WorkerPayloads.Info info) {
        out.line(WorkerCodec.encode(WorkerCodec.event(WorkerRpc.EVENT_STATE, new WorkerPayloads.StateEvent(info))));
    }

    @Override
    public void exit(WorkerPayloads.ExitEvent exit) {
        out.line(WorkerCodec.encode(WorkerCodec.event(WorkerRpc.EVENT_EXIT, exit)));
    }

    private void end() {
        detach();
        if (watching) {
            served.unwatch(this);
        }
        if (authenticated) {
            served.connectionClosed();
        }
        out.flush(); // the last answer (a refused hello, say) reaches the peer before the close
        out.close();
        lines.close();
    }

}
