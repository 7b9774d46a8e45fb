package dev.limpet.bench.client;

import dev.limpet.bench.proc.Reaper;
import dev.limpet.terminal.pty.PtyProcess;
import dev.limpet.terminal.pty.PtySpawnSpec;
import dev.limpet.testkit.TestPrograms;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Command lines of the programs the figures run, and raw-PTY spawning of them. */
public final class Programs {
    private Programs() {}

    public static List<String> gatedFlood(long bytes, String... options) {
        String[] args = new String[options.length + 1];
        args[0] = Long.toString(bytes);
        System.arraycopy(options, 0, args, 1, options.length);
        return TestPrograms.command(dev.limpet.testkit.GatedFlood.class, args);
    }

    public static List<String> rawEcho() {
        return TestPrograms.command(dev.limpet.testkit.RawEcho.class);
    }

    /** Spawns under a raw PTY of ours (80×24, TERM set), registered for clean-up. */
    public static PtyProcess spawnRaw(List<String> argv) throws IOException {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("TERM", "xterm-256color");
        PtyProcess p = PtyProcess.spawn(new PtySpawnSpec(argv, env, null, 80, 24));
        Reaper.track(p.pid());
        return p;
    }
}
