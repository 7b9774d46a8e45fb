package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
    private TmuxTerminal pane;
    private DaemonProcess daemon;
    private String sessionId;

    @AfterEach
    void tearDown() throws Exception {
        if (pane != null) {
            pane.close();
        }
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
        pane = new TmuxTerminal(100, 30, "env XDG_CONFIG_HOME=" + tmp.resolve("cfg") + " " + String.join(" ", attach)
                + "; echo ATTACH_EXIT=$?; sleep 600", this::daemonLog);
        pane.awaitScreen(s -> s.strip().endsWith("$"), "attached: the prompt is shown");
        pane.type("echo before-$((1+1))", "Enter");
        pane.awaitScreen(s -> s.contains("before-2"), "first command ran");
        String pidBefore = shellPid();

        daemon.kill9();
        pane.awaitScreen(s -> s.contains("limpet: reconnecting"), "reconnecting status shown");
        daemon = DaemonProcess.start(root);

        pane.awaitScreen(s -> !s.contains("reconnecting"), "re-attached");
        pane.type("echo after-$((2+2))", "Enter");
        pane.awaitScreen(s -> s.contains("after-4"), "typing reaches the same shell after the restart");
        pane.type("echo pid-$$", "Enter");
        pane.awaitScreen(s -> s.contains("pid-" + pidBefore), "the same shell process answers");

        String screen = pane.screen();
        assertThat(screen.indexOf("before-2")).isLessThan(screen.indexOf("after-4"));
        for (String output : List.of("before-2", "after-4")) {
            assertThat(TmuxTerminal.count(screen, output)).as("%s shown once:%n%s", output, screen).isEqualTo(1);
        }
        pane.typeHex("1c");
        pane.awaitScreen(s -> s.contains("ATTACH_EXIT=0"), "detached with exit 0");
    }

    private String shellPid() throws Exception {
        for (var s : JSON.readTree(LimpetCli.run(daemon.root, "ls", "--json").out())) {
            if (s.path("id").asText().equals(sessionId)) {
                return s.path("pid").asText();
            }
        }
        throw new AssertionError("session " + sessionId + " not listed");
    }

    private String daemonLog() {
        try {
            return "daemon log:\n" + daemon.log();
        } catch (IOException e) {
            return "daemon log unreadable: " + e;
        }
    }
}
