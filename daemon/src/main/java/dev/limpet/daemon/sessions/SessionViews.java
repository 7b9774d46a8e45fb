package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.protocol.SessionInfo;

/** Joins stored metadata with live runtime facts into what clients see. */
final class SessionViews {
    private SessionViews() {}

    static SessionInfo toInfo(StoredSession s, RuntimeInfo runtime, int attached) {
        if (runtime == null) {
            return new SessionInfo(s.id(), s.label(), s.command(), s.cwd(), s.state(), s.pid(), s.exitCode(),
                    s.exitSignal(), s.createdAt().toString(), 0, 0, 0, attached);
        }
        String state;
        Integer exitCode = null;
        String exitSignal = null;
        if (runtime.running()) {
            state = SessionInfo.RUNNING;
        } else {
            state = SessionInfo.EXITED;
            if (runtime.exit() != null) {
                exitCode = runtime.exit().signaled() ? null : runtime.exit().exitCode();
                exitSignal = runtime.exit().signaled() ? SessionService.signalName(runtime.exit().signal()) : null;
            }
        }
        return new SessionInfo(s.id(), s.label(), s.command(), s.cwd(), state, runtime.pid(), exitCode, exitSignal,
                s.createdAt().toString(), runtime.cols(), runtime.rows(), runtime.endOffset(), attached);
    }
}
