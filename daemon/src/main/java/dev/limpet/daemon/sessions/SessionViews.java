package dev.limpet.daemon.sessions;

import dev.limpet.daemon.backend.RuntimeInfo;
import dev.limpet.daemon.store.LaunchIntent;
import dev.limpet.daemon.store.StoredSession;
import dev.limpet.protocol.SessionInfo;

/** Joins stored metadata with live runtime facts into what clients see. */
final class SessionViews {
    private SessionViews() {}

    static SessionInfo toInfo(StoredSession s, RuntimeInfo runtime, int attached, LaunchIntent intent) {
        String reason = intent.reason();
        if (runtime == null || (!runtime.running() && SessionInfo.RECOVERABLE.equals(s.state()))) {
            // A revived program that ended at once is recoverable again while its worker still holds the output.
            // A recoverable session runs nothing: a pid kept from before (an older store wrote one) names a dead
            // process, or by now someone else's.
            Long pid = SessionInfo.RECOVERABLE.equals(s.state()) ? null : s.pid();
            return new SessionInfo(s.id(), s.label(), s.command(), s.cwd(), s.state(), pid, s.exitCode(),
                    s.exitSignal(), s.createdAt().toString(), runtime == null ? 0 : runtime.cols(), runtime == null ? 0 : runtime.rows(),
                    runtime == null ? 0 : runtime.endOffset(), attached, reason, intent.lastCwd(),
                    s.activity());
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
                exitSignal = runtime.exit().signaled() ? ExitRecorder.signalName(runtime.exit().signal()) : null;
            }
        }
        return new SessionInfo(s.id(), s.label(), s.command(), s.cwd(), state, runtime.pid(), exitCode, exitSignal,
                s.createdAt().toString(), runtime.cols(), runtime.rows(), runtime.endOffset(), attached,
                SessionInfo.RUNNING.equals(state) ? reason : null, intent.lastCwd(), s.activity());
    }
}
