package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.it.AttachProxyIT.TcpProxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code limpet attach} driven through tmux as a person would: type, lose the link, type while it is
 * down (held, sent once it is back), let the session print meanwhile, get the link back, keep typing, detach. The
 * pane must show one continuous session. Each test runs its own tmux server ({@code -L}).
 */
class AttachTmuxIT {
    @TempDir
    Path tmp;

    private TmuxTerminal pane;
    private final List<Process> processes = new ArrayList<>();
    private final List<DaemonProcess> daemons = new ArrayList<>();
    private TcpProxy proxy;

    @AfterEach
    void tearDown() throws Exception {
        if (pane != null) {
            pane.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (DaemonProcess d : daemons) {
            d.close();
        }
    }

    @Test
    void aPersonKeepsOneContinuousSessionAcrossALostLinkAndDetaches() throws Exception {
        DaemonProcess daemon = DaemonProcess.start(tmp.resolve("root"));
        daemons.add(daemon);
        String id = daemon.spawnShell();
        proxy = new TcpProxy(daemon.port());

        String attach = String.join(" ", DaemonProcess.limpet()) + " attach " + id;
        String env = "LIMPET_URL=http://127.0.0.1:" + proxy.port() + "/ LIMPET_TOKEN=" + daemon.token()
                + " XDG_CONFIG_HOME=" + tmp.resolve("cfg");
        pane = new TmuxTerminal(100, 30, "env " + env + " " + attach + "; echo ATTACH_EXIT=$?; sleep 600", () -> "");

        // Wait for the replayed prompt: the first command is typed at a prompt the person sees.
        pane.awaitScreen(s -> s.strip().startsWith("$"), "attached: the prompt is replayed");
        pane.type("echo one-$((1+1))", "Enter");
        pane.awaitScreen(s -> s.contains("one-2"), "first command ran");

        proxy.refuse(true);
        proxy.cutAll();
        pane.awaitScreen(s -> s.contains("limpet: reconnecting to 127.0.0.1… (attempt"), "reconnecting status shown");
        daemon.input(id, "echo while-away-$((2+2))\n");
        // Keys typed while reconnecting are held (shown on the status line) and sent once after the re-attach.
        pane.type("echo held-$((4+4))", "Enter");
        pane.awaitScreen(s -> s.contains("key(s) held, sent once reattached"), "held keys shown");
        Thread.sleep(500);
        proxy.refuse(false);

        pane.awaitScreen(s -> s.contains("while-away-4") && s.contains("held-8") && !s.contains("reconnecting"),
                "output made while away replayed, then the held keys ran");
        pane.type("echo two-$((3+3))", "Enter");
        pane.awaitScreen(s -> s.contains("two-6"), "typing works again");

        String screen = pane.screen();
        assertThat(screen.indexOf("one-2")).isLessThan(screen.indexOf("while-away-4"));
        assertThat(screen.indexOf("while-away-4")).isLessThan(screen.indexOf("held-8"));
        assertThat(screen.indexOf("held-8")).isLessThan(screen.indexOf("two-6"));
        // The commands show $((…)); only their output shows the results, so each appears exactly once.
        for (String output : List.of("one-2", "while-away-4", "held-8", "two-6")) {
            assertThat(TmuxTerminal.count(screen, output)).as("%s shown once:%n%s", output, screen).isEqualTo(1);
        }

        pane.typeHex("1c");
        pane.awaitScreen(s -> s.contains("[detached from " + id + "]") && s.contains("ATTACH_EXIT=0"), "detached with exit 0");
    }

    @Test
    void attachToAnUnknownSessionExitsTwoNamingIt() throws Exception {
        DaemonProcess daemon = DaemonProcess.start(tmp.resolve("root"));
        daemons.add(daemon);
        String env = "LIMPET_URL=http://127.0.0.1:" + daemon.port() + "/ LIMPET_TOKEN=" + daemon.token()
                + " XDG_CONFIG_HOME=" + tmp.resolve("cfg");
        pane = new TmuxTerminal(100, 30, "env " + env + " " + String.join(" ", DaemonProcess.limpet()) + " attach no-such-thing; echo ATTACH_EXIT=$?; sleep 600", () -> "");
        pane.awaitScreen(s -> s.contains("ATTACH_EXIT=2"), "exit 2");
        assertThat(pane.screen()).contains("no session 'no-such-thing'");
    }

    /**
     * A shell asked its terminal questions while nobody watched; attaching replays them and the
     * person's terminal (tmux here) answers: those answers must never be typed into the shell.
     */
    @Test
    void attachingNeverTypesTheTerminalsAnswersToReplayedQueriesIntoTheSession() throws Exception {
        DaemonProcess daemon = DaemonProcess.start(tmp.resolve("root"));
        daemons.add(daemon);
        String id = daemon.spawnShell();
        daemon.input(id, "printf 'asked\\033[c\\033[6n\\n'\n");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!LimpetCli.run(daemon.root, "capture", id).out().contains("asked") && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        String env = "LIMPET_URL=http://127.0.0.1:" + daemon.port() + "/ LIMPET_TOKEN=" + daemon.token()
                + " XDG_CONFIG_HOME=" + tmp.resolve("cfg");
        pane = new TmuxTerminal(100, 30, "env " + env + " " + String.join(" ", DaemonProcess.limpet()) + " attach " + id
                + "; sleep 600", () -> "");
        pane.awaitScreen(s -> s.contains("asked"), "attached: the replay is shown");
        Thread.sleep(1500); // tmux answers as it parses the replay
        pane.type("echo after-$((4+5))", "Enter");
        pane.awaitScreen(s -> s.contains("after-9"), "typing works");
        String screen = LimpetCli.run(daemon.root, "capture", id).out();
        String prompt = screen.substring(screen.indexOf("asked"));
        assertThat(prompt).as("no answer (1;2c, n;mR) on the prompt:%n%s", screen).doesNotContainPattern("\\d;\\d+c|\\d+;\\d+R|\\?1;2c");
    }
}
