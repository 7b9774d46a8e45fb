package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.testkit.Counter;
import dev.limpet.testkit.TestPrograms;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two daemons on one machine, named in hosts.json: listed together, and attach reaches the one named by {@code --host}. */
class AttachTwoHostsIT {
    @TempDir
    Path tmp;

    private final List<Process> processes = new ArrayList<>();
    private final List<DaemonProcess> daemons = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        processes.forEach(Process::destroyForcibly);
        for (DaemonProcess d : daemons) {
            d.close();
        }
    }

    @Test
    void twoHostsAreListedTogetherAndAttachFollowsTheHostName() throws Exception {
        DaemonProcess alpha = DaemonProcess.start(tmp.resolve("alpha"));
        daemons.add(alpha);
        DaemonProcess beta = DaemonProcess.start(tmp.resolve("beta"));
        daemons.add(beta);
        String a = alpha.spawn("on-alpha", TestPrograms.command(Counter.class, "0", "1000"));
        String b = beta.spawn("on-beta", TestPrograms.command(Counter.class, "0", "1000"));
        Path config = tmp.resolve("cfg/limpet");
        Files.createDirectories(config);
        Files.writeString(config.resolve("hosts.json"), """
                {"hosts":[
                  {"name":"alpha","url":"http://127.0.0.1:%d","token_file":"%s"},
                  {"name":"beta","url":"http://127.0.0.1:%d","token_file":"%s"}]}"""
                .formatted(alpha.port(), alpha.root.resolve("auth-token"), beta.port(), beta.root.resolve("auth-token")));

        String listing = run(List.of("ls", "--all-hosts", "--data-root", tmp.resolve("no-local-daemon").toString()), null);
        assertThat(listing).containsPattern("alpha\\s+" + a + "\\s+on-alpha").containsPattern("beta\\s+" + b + "\\s+on-beta");

        // Attach by label on the host named beta; the detach key arrives on stdin once output flowed.
        String attached = run(List.of("attach", "--host", "beta", "on-beta"), "\u001c");
        assertThat(attached).contains("line 1\r\n").endsWith("[detached from " + b + "]\n");
    }

    /** Runs a limpet verb with XDG_CONFIG_HOME pointing at the test's hosts.json; {@code keys} are typed once the session's first line arrived. */
    private String run(List<String> args, String keys) throws Exception {
        List<String> command = new ArrayList<>(DaemonProcess.limpet());
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(tmp.resolve("verb.err").toFile());
        pb.environment().put("XDG_CONFIG_HOME", tmp.resolve("cfg").toString());
        pb.environment().remove("LIMPET_URL");
        Process p = pb.start();
        processes.add(p);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = Thread.ofPlatform().daemon(true).start(() -> {
            try {
                byte[] buffer = new byte[8192];
                int n;
                while ((n = p.getInputStream().read(buffer)) >= 0) {
                    synchronized (out) {
                        out.write(buffer, 0, n);
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        if (keys != null) {
            // Type only once output flows: the keys go to the session as it is shown.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
                synchronized (out) {
                    return out.toString(StandardCharsets.UTF_8).contains("line 1\r\n");
                }
            });
            OutputStream in = p.getOutputStream();
            in.write(keys.getBytes(StandardCharsets.UTF_8));
            in.flush();
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        reader.join(10_000);
        assertThat(p.exitValue()).as("exit of %s; stderr: %s", args, Files.readString(tmp.resolve("verb.err"))).isZero();
        synchronized (out) {
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
