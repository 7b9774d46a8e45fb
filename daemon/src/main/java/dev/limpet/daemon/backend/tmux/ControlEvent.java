package dev.limpet.daemon.backend.tmux;

import java.util.Arrays;
import java.util.List;

/** One line of tmux control mode, read ({@link ControlLines#parse}). Lines we do not use are {@link Other}. */
sealed interface ControlEvent {
    /** {@code %output} or {@code %extended-output}: bytes a pane's program wrote, unescaped. */
    record Output(String paneId, byte[] data) implements ControlEvent {
        @Override
        public boolean equals(Object o) {
            return o instanceof Output x && x.paneId.equals(paneId) && Arrays.equals(x.data, data);
        }

        @Override
        public int hashCode() {
            return paneId.hashCode() * 31 + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "Output[" + paneId + ", " + data.length + " bytes]";
        }
    }

    /** tmux stopped sending a pane's output to this client (it fell behind, or asked): output until {@code %continue} is gone. */
    record Paused(String paneId) implements ControlEvent {}

    record Continued(String paneId) implements ControlEvent {}

    /** A reply to one command: {@code %begin … %end} (ok) or {@code … %error}; {@code ours} when this client sent the command. */
    record Reply(boolean ok, boolean ours, List<String> lines) implements ControlEvent {
        public Reply {
            lines = List.copyOf(lines);
        }
    }

    /** {@code %subscription-changed <name> … : <value>}. */
    record Subscription(String name, String paneId, String value) implements ControlEvent {}

    /** The control client is leaving: its session is gone, the server went away, or it was detached. */
    record Exit(String reason) implements ControlEvent {}

    record Other(String line) implements ControlEvent {}
}
