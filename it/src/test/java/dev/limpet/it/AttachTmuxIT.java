package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.it.AttachProxyIT.Daemon;
import dev.limpet.it.AttachProxyIT.TcpProxy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code limpet attach} driven through tmux as a person would: type, lose the link, type while it is
 * down (discarded), let the session print meanwhile, get the link back, keep typing, detach. The
 * pane must show one continuous session. Each test runs its own tmux server ({@code -L}).
 */
class AttachTmuxIT {
    @TempDir
    Path tmp;

    private final String socket = "limpet-it-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<Process> processes = new ArrayList<>();
    private TcpProxy proxy;

    @AfterEach
    void tearDown() throws Exception {
        tmux("kill-server");
        if (proxy != null) {
            proxy.close();
        }
        for (Process p : processes) {
            p.destroyForcibly();
        }
    }

    @Test
    void aPersonKeepsOneContinuousSessionAcrossALostLinkAndDetaches() throws Exception {
        Daemon daemon = Daemon.start(tmp.resolve("root"), tmp.resolve("daemon.log"), processes);
        String id = daemon.spawnShell();
        proxy = new TcpProxy(daemon.port());

        String attach = String.join(" ", Daemon.limpet()) + " attach " + id;
        String env = "LIMPET_URL=http://127.0.0.1:" + proxy.port() + "/ LIMPET_TOKEN=" + daemon.token()
                + " XDG_CONFIG_HOME=" + tmp.resolve("cfg");
        tmux("new-session", "-d", "-s", "it", "-x", "100", "-y", "30",
                "env " + env + " " + attach + "; echo ATTACH_EXIT=$?; sleep 600");

        // Keys typed before the attachment is up are discarded by design: wait for the replayed prompt.
        awaitScreen(s -> s.strip().startsWith("$"), "attached: the prompt is replayed");
        type("echo one-$((1+1))", "Enter");
        awaitScreen(s -> s.contains("one-2"), "first command ran");

        proxy.refuse(true);
        proxy.cutAll();
        awaitScreen(s -> s.contains("limpet: reconnecting to 127.0.0.1… (attempt"), "reconnecting status shown");
        type("zzz");
        daemon.input(id, "echo while-away-$((2+2))\n");
        Thread.sleep(500);
        proxy.refuse(false);

        awaitScreen(s -> s.contains("while-away-4") && !s.contains("reconnecting"), "output made while away replayed");
        type("echo two-$((3+3))", "Enter");
        awaitScreen(s -> s.contains("two-6"), "typing works again");

        String screen = capture();
        assertThat(screen).doesNotContain("zzz");
        assertThat(screen.indexOf("one-2")).isLessThan(screen.indexOf("while-away-4"));
        assertThat(screen.indexOf("while-away-4")).isLessThan(screen.indexOf("two-6"));
        // The commands show $((…)); only their output shows the results, so each appears exactly once.
        for (String output : List.of("one-2", "while-away-4", "two-6")) {
            assertThat(count(screen, output)).as("%s shown once:%n%s", output, screen).isEqualTo(1);
        }

        tmux("send-keys", "-t", "it", "-H", "1c");
        awaitScreen(s -> s.contains("[detached from " + id + "]") && s.contains("ATTACH_EXIT=0"), "detached with exit 0");
    }

    @Test
    void attachToAnUnknownSessionExitsTwoNamingIt() throws Exception {
        Daemon daemon = Daemon.start(tmp.resolve("root"), tmp.resolve("daemon.log"), processes);
        String env = "LIMPET_URL=http://127.0.0.1:" + daemon.port() + "/ LIMPET_TOKEN=" + daemon.token()
                + " XDG_CONFIG_HOME=" + tmp.resolve("cfg");
        tmux("new-session", "-d", "-s", "it", "-x", "100", "-y", "30",
                "env " + env + " " + String.join(" ", Daemon.limpet()) + " attach no-such-thing; echo ATTACH_EXIT=$?; sleep 600");
        awaitScreen(s -> s.contains("ATTACH_EXIT=2"), "exit 2");
        assertThat(capture()).contains("no session 'no-such-thing'");
    }

    private void type(String... keys) throws Exception {
        List<String> args = new ArrayList<>(List.of("send-keys", "-t", "it"));
        args.addAll(List.of(keys));
        tmux(args.toArray(String[]::new));
    }

    private void awaitScreen(java.util.function.Predicate<String> condition, String what) throws Exception {
        try {
            await(what).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> condition.test(capture()));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("timed out waiting for: " + what + "; the pane shows:\n" + capture(), e);
        }
    }

    private String capture() throws Exception {
        return tmux("capture-pane", "-p", "-t", "it");
    }

    private static int count(String haystack, String needle) {
        int n = 0;
        for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    private String tmux(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("tmux", "-L", socket, "-f", "/dev/null"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        return out;
    }
}
