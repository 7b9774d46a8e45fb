package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay as a person at another machine uses it: {@code limpet pair --join} with the link,
 * {@code limpet ls --host} and {@code limpet attach --host} through the relay, in a real terminal;
 * the relay is killed with {@code kill -9} and started again; the person keeps typing into the same
 * shell and the screen shows one continuous session.
 */
class RelayAttachIT {
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path tmp;
    private TmuxTerminal pane;
    private RelayProcess relay;
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
        if (relay != null) {
            relay.kill9();
        }
    }

    @Test
    void attachThroughTheRelayRidesThroughARelayKillNineAndRestart() throws Exception {
        Path relayDir = tmp.resolve("relay");
        int port = RelayProcess.freePort();
        relay = RelayProcess.start(relayDir, port);
        Path root = tmp.resolve("root");
        Files.createDirectories(root);
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
        Path credential = root.resolve("relay-credential");
        Files.writeString(credential, RelayProcess.addHost(relayDir) + "\n");
        Files.setPosixFilePermissions(credential, PosixFilePermissions.fromString("rw-------"));
        daemon = DaemonProcess.start(root, 0, Map.of(), "--relay", relay.url);
        RelayIT.awaitUplink(daemon, "connected");
        sessionId = LimpetCli.run(root, "new", "--label", "far", "--size", "100x30", "--",
                "env", "PS1=$ ", "bash", "--norc", "--noprofile", "-i").out().strip();
        String link = RelayIT.pair(root, "--label", "laptop").get(0);

        // The other machine: its own config directory, no access to the daemon's data root.
        Map<String, String> elsewhere = Map.of("XDG_CONFIG_HOME", tmp.resolve("cfg").toString(), "LIMPET_HOME", tmp.resolve("nothing").toString());
        var joined = LimpetCli.run(elsewhere, "pair", "--join", "far", link);
        assertThat(joined.exitCode()).as(joined.err()).isZero();
        var listed = LimpetCli.run(elsewhere, "ls", "--host", "far", "--json");
        assertThat(listed.exitCode()).as(listed.err()).isZero();
        assertThat(JSON.readTree(listed.out()).findValuesAsText("id")).contains(sessionId);
        var wrong = LimpetCli.run(Map.of("XDG_CONFIG_HOME", tmp.resolve("cfg2").toString()), "pair", "--join", "far",
                link.substring(0, link.indexOf('#') + 1) + "A".repeat(43));
        assertThat(wrong.exitCode()).isZero();
        var refused = LimpetCli.run(Map.of("XDG_CONFIG_HOME", tmp.resolve("cfg2").toString()), "ls", "--host", "far");
        assertThat(refused.exitCode()).isNotZero();
        assertThat(refused.err()).contains("pairing_invalid");

        List<String> attach = new ArrayList<>(List.of(DaemonProcess.java()));
        attach.addAll(DaemonProcess.fastJvm());
        attach.addAll(List.of("-jar", DaemonProcess.jar().toString(), "attach", "--host", "far", sessionId));
        pane = new TmuxTerminal(100, 30, "env XDG_CONFIG_HOME=" + tmp.resolve("cfg") + " " + String.join(" ", attach)
                + "; echo ATTACH_EXIT=$?; sleep 600", this::logs);
        pane.awaitScreen(s -> s.strip().endsWith("$"), "attached through the relay: the prompt is shown");
        pane.type("echo before-$((1+1))", "Enter");
        pane.awaitScreen(s -> s.contains("before-2"), "first command ran");

        relay.kill9();
        pane.awaitScreen(s -> s.contains("limpet: reconnecting"), "reconnecting status shown");
        relay = RelayProcess.start(relayDir, port);

        pane.awaitScreen(s -> !s.contains("reconnecting"), "re-attached through the restarted relay");
        pane.type("echo after-$((2+2))", "Enter");
        pane.awaitScreen(s -> s.contains("after-4"), "typing reaches the same shell after the relay restart");
        String screen = pane.screen();
        assertThat(screen.indexOf("before-2")).isLessThan(screen.indexOf("after-4"));
        for (String output : List.of("before-2", "after-4")) {
            assertThat(TmuxTerminal.count(screen, output)).as("%s shown once:%n%s", output, screen).isEqualTo(1);
        }
        pane.typeHex("1c");
        pane.awaitScreen(s -> s.contains("ATTACH_EXIT=0"), "detached with exit 0");
    }

    private String logs() {
        try {
            return "daemon log:\n" + daemon.log() + "\nrelay log:\n" + relay.log();
        } catch (Exception e) {
            return "(no logs: " + e + ")";
        }
    }
}
