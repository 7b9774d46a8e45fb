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
               last byte. Measured twice per run, one row each: attached `lossless`, the client
               acknowledging as one that renders instantly would (`pty_ack` of everything received once
               256 KiB arrived since the last one, or 5 ms after the last unacknowledged frame; default
               window); and attached `live` (after a `pty_desync` it re-attaches with `since` = what it
               has, as clients must). "delivered" = unique bytes by offset ÷ N (worst run); desyncs,
               bytes received twice and stalls (no byte for 20 s, 10 s with --quick: the run gives up,
               its time runs to then) are listed. A lossless run that misses a byte, repeats one,
               desyncs or stalls is marked "⚠ NOT LOSSLESS". Raw PTY: the same program drained by a plain
               reader. tmux (compared with the lossless client): the same program in a private tmux
               server with a client attached under a PTY we drain, time = start byte → the client's end
               of file; "delivered" counts the pattern characters that reached the tmux client (tmux
               redraws rather than passing every byte).
            2. **echo**: `RawEcho` in raw mode; one byte typed, time until it is seen back; 1 ms between
               keystrokes; the first 10 % of each run are warm-up. limpet: `pty_input` over the WebSocket →
               binary `pty_output`. Raw PTY: write to the master, read it back. tmux: write to the attached
               client's PTY, wait for the character in the client's screen output. Each row is one
               percentile per run (median over runs); goals: p50 ≤ 1.5× tmux's, limpet's p99 ≤ 5 ms.
            3. **spawn**: `spawn_session` → `spawn_result` → `attach_session` → first output byte of
               `sh -c 'printf ready; exec sleep 600'`, over an open WebSocket. tmux: wall time of
               `tmux new-session -d` with the same command on a running server (it returns once the pane is
               forked, before any output: a lower bound for tmux). Worker backend, default (dense) mode: the
               first spawn of a daemon as soon as it listens (3 fresh daemons), spawns after 3 s idle and
               right after another (back-to-back); `isolated`: after idle (the standby) and back-to-back (cold).
            4. **memory**: PSS (`/proc/PID/smaps_rollup`) of the daemon plus, with the worker backend, its
               worker processes (dense hosts, the warm host included; or a worker per session and the
               standby with `isolated`), with idle `sleep` sessions; tmux: the server's PSS. "daemon idle":
               the daemon alone, 11 s after start, before any session. "per idle session": the workers' PSS
               divided by the sessions (worker backend) or the growth per added session (embedded, tmux);
               "in a host": what the first host grew by per session it took. "under yes": the peak while
               `yes` runs for a fixed time with a client attached.
            5. **recovery**: sessions on the worker backend (default mode, and `isolated` for 100) or the
               tmux backend, daemon `kill -9`, new daemon on the same data root (from the daemon's AOT cache
               when the launcher's is fresh, as `./limpet daemon` and the user service start it); time from
               the new process' start to an `initial_state` listing every session running.
            6. **reattach**: a daemon of its own started with `--ring-bytes 1048576` (the default ring is
               4 MiB), a session that wrote 2 MiB so its 1 MiB ring is full; a newly connected client
               attaches with `since` = ring start (full replay) or without `since` (the daemon may send a
               snapshot); time from `attach_session` until every byte up to `end_offset` (and the
               snapshot) arrived. The reference column is the 50 ms target.
            7. **viewers**: one session floods (`GatedFlood`, N bytes) watched by 1 WebSocket connection,
               then a new session by 3, each attached `live` from offset 0 and counting bytes by offset
               (fast clients; a desynced viewer re-attaches from what it has: bytes that left the ring by
               then are lost and show as delivered < 100 %). The daemon process' CPU time (utime + stime
               from `/proc/PID/stat`, all its threads; its workers are other processes and not counted) from
               just before the start byte to the last viewer's last byte, divided by the bytes delivered to
               all viewers together. Ratio = 3 viewers ÷ 1 viewer (goal ≤ 1.5×: fanning out should cost
               about the bytes sent, not another pass over the output); a warm-up flood first, then runs
               alternate which count goes first. Clock-tick resolution (10 ms), so small floods are coarse.
               The second row is the flood's speed to the slowest viewer, 3 viewers ÷ 1 (all clients run in
               the benchmark's JVM on the same machine).
            8. **micro**: JMH, throughput; references are `System.arraycopy` of the same bytes where a
               physical floor makes sense.
            9. **verbs**: wall time of `limpet ls`, `status`, `capture ID` and `send --no-enter ID x`
               through the launcher `limpet install --prefix` writes (installed from the jar under test
               into the run's scratch directory: its JVM flags and AOT cache, as a person runs them),
               and of `ls` through the repository's `./limpet` (which first looks for sources newer than
               the jar), against a daemon with one session; reference `tmux ls` on a private server.
               Median of 20 (5 with --quick) after one uncounted warm-up (which may train the cache).
            10. **relay**: figures 1 and 2 through a `limpet relay` on loopback, and through two relay nodes
               on one `nats-server`, against the same daemon reached directly in the same run.
            11. **key → glyph in Chromium**: the web UI in Debian's Chromium (headless, driven over a bare
               DevTools connection: no Network domain, which would copy every WebSocket frame to the
               driver), a fresh daemon, `stty raw -echo; exec cat` in the page's first terminal.
               A key pressed as a person's (CDP input) until the first xterm.js render after the cursor
               moved, timed in the page from its keydown (capture phase). Reference: a second terminal
               of the same xterm.js class and options in the same page, echoing its input locally (one
               parse and one animation frame: the floor for any web terminal). The first tenth of the
               keys warm up; the rest in 3 parts (2 with --quick), each part's median one run. Then
               the same keys once `cat` has echoed a request for a blinking cursor (DECSCUSR 1) typed
               to it, against the same reference.
            12. **flood in Chromium**: the same page; `cat` of N bytes of numbered 80-column lines and an
               end marker, from the Enter until the render that shows the marker. Reference: the same
               bytes written into a fresh terminal of the same class in the same page, 64 KiB at a time,
               until it shows the marker. One uncounted pair first (both terminals' warm-up). The page's
               WebSocket negotiates what Chromium offers (`permessage-deflate`, named in the row).
               Figures 11 and 12 run twice: in the page of a fresh daemon, and in the page a `limpet
               pair` link opens through a `limpet relay` on loopback (the daemon's uplink to it, every
               message sealed end to end: WebCrypto in the page, the system's OpenSSL in the daemon;
               the relay declines `permessage-deflate`). The relayed rows have no goal.
            """;
}
