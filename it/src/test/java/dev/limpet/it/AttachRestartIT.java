package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The defining promise, as a person sees it: attached through {@code limpet attach} in a terminal,
 * the daemon is killed with {@code kill -9} and started again; the person keeps typing into the
 * same shell, and the screen shows one continuous session.
 */
class AttachRestartIT {
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path tmp;
    private final String socket = "limpet-rs-" + UUID.randomUUID().toString().substring(0, 8);
    private DaemonProcess daemon;
    private String sessionId;

    @AfterEach
    void tearDown() throws Exception {
        tmux("kill-server");
        if (daemon != null && daemon.process.isAlive() && sessionId != null) {
            LimpetCli.run(daemon.root, "rm", sessionId);
        }
        if (daemon != null) {
            daemon.close();
        }
    }

    @Test
    void attachRidesThroughADaemonKillNineAndRestart() throws Exception {
        Path root = tmp.resolve("root");
        daemon = DaemonProcess.start(root);
        String backend = JSON.readTree(LimpetCli.run(root, "status", "--json").out()).path("backend").asText();
        assertThat(backend).as("the default backend keeps sessions across restarts").isEqualTo("worker");
        sessionId = LimpetCli.run(root, "new", "--label", "keep", "--size", "100x30", "--",
                "env", "PS1=$ ", "bash", "--norc", "--noprofile", "-i").out().strip();

        List<String> attach = new ArrayList<>(List.of(DaemonProcess.java()));
        attach.addAll(DaemonProcess.fastJvm());
        attach.addAll(List.of("-jar", DaemonProcess.jar().toString(), "attach", "--data-root", root.toString(), sessionId));
        tmux("new-session", "-d", "-s", "it", "-x", "100", "-y", "30",
                "env XDG_CONFIG_HOME=" + tmp.resolve("cfg") + " " + String.join(" ", attach) + "; echo ATTACH_EXIT=$?; sleep 600");
        awaitScreen(s -> s.strip().endsWith("$"), "attached: the prompt is shown");
        type("echo before-$((1+1))", "Enter");
        awaitScreen(s -> s.contains("before-2"), "first command ran");
        String pidBefore = shellPid();

        daemon.kill9();
        awaitScreen(s -> s.contains("limpet: reconnecting"), "reconnecting status shown");
        daemon = DaemonProcess.start(root);

        awaitScreen(s -> !s.contains("reconnecting"), "re-attached");
        type("echo after-$((2+2))", "Enter");
        awaitScreen(s -> s.contains("after-4"), "typing reaches the same shell after the restart");
        type("echo pid-$$", "Enter");
        awaitScreen(s -> s.contains("pid-" + pidBefore), "the same shell process answers");

        String screen = capture();
        assertThat(screen.indexOf("before-2")).isLessThan(screen.indexOf("after-4"));
        for (String output : List.of("before-2", "after-4")) {
            assertThat(count(screen, output)).as("%s shown once:%n%s", output, screen).isEqualTo(1);
        }
        tmux("send-keys", "-t", "it", "-H", "1c");
        awaitScreen(s -> s.contains("ATTACH_EXIT=0"), "detached with exit 0");
    }

    private String shellPid() throws Exception {
        for (var s : JSON.readTree(LimpetCli.run(daemon.root, "ls", "--json").out())) {
            if (s.path("id").asText().equals(sessionId)) {
                return s.path("pid").asText();
            }
        }
        throw new AssertionError("session " + sessionId + " not listed");
    }

    private void type(String... keys) throws Exception {
        List<String> args = new ArrayList<>(List.of("send-keys", "-t", "it"));
        args.addAll(List.of(keys));
        tmux(args.toArray(String[]::new));
    }

    private void awaitScreen(java.util.function.Predicate<String> condition, String what) throws Exception {
        try {
            await(what).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> condition.test(capture()));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("timed out waiting for: " + what + "; the pane shows:\n" + capture()
                    + "\ndaemon log:\n" + daemon.log(), e);
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
