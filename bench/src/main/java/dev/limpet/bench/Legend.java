package dev.limpet.bench;

/** What each row means; written under the table in docs/benchmarks.md. */
final class Legend {
    private Legend() {}

    static final String TEXT = """
            Each row: median of the runs (n in the spread column), ratio = limpet ÷ reference of the medians,
            spread = ± half the range of the runs relative to the median (limpet / reference). Goals are
            targets from ARCHITECTURE.md, not assertions. Rows are per backend the daemon really ran.

            1. **throughput**: `GatedFlood` writes N bytes (no newline) in a session once it gets a start byte;
               a WebSocket client attached from offset 0 counts every byte by offset; time = start byte →
               last byte. Raw PTY: the same program drained by a plain reader. tmux: the same program in a
               private tmux server with a client attached under a PTY we drain, time = start byte → the
               client's end of file; "delivered" counts the pattern characters that reached the tmux client
               (tmux redraws rather than passing every byte).
            2. **echo**: `RawEcho` in raw mode; one byte typed, time until it is seen back; 1 ms between
               keystrokes; the first 10 % of each run are warm-up. limpet: `pty_input` over the WebSocket →
               binary `pty_output`. Raw PTY: write to the master, read it back. tmux: write to the attached
               client's PTY, wait for the character in the client's screen output.
            3. **spawn**: `spawn_session` → `spawn_result` → `attach_session` → first output byte of
               `sh -c 'printf ready; exec sleep 600'`, over an open WebSocket. tmux: wall time of
               `tmux new-session -d` with the same command on a running server (it returns once the pane is
               forked, before any output: a lower bound for tmux).
            4. **memory**: PSS (`/proc/PID/smaps_rollup`) of the daemon plus, with the worker backend, its
               worker processes, with idle `sleep` sessions; tmux: the server's PSS. "per idle session" is
               a worker's PSS (worker backend) or the growth per added session (embedded, tmux).
               "under yes": the peak while `yes` runs for a fixed time with a client attached.
            5. **recovery**: sessions on the worker backend, daemon `kill -9`, new daemon on the same data
               root; time from the new process' start to an `initial_state` listing every session running.
            6. **reattach**: a session whose 1 MiB ring is full; a connected client attaches with `since` =
               ring start (full replay) or without `since` (the daemon may send a snapshot); time until
               every byte up to `end_offset` (and the snapshot) arrived.
            7. **micro**: JMH, throughput; references are `System.arraycopy` of the same bytes where a
               physical floor makes sense.
            """;
}
