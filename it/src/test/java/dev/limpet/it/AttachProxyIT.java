package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.limpet.testkit.Counter;
import dev.limpet.testkit.TestPrograms;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code limpet attach} through a TCP proxy that cuts the connection mid-output: the attach resumes
 * with {@code since} and the bytes it writes are exactly the counter's stream, with no duplicate and
 * no gap.
 */
class AttachProxyIT {
    @TempDir
    Path tmp;

    private final List<Process> processes = new ArrayList<>();
    private final List<DaemonProcess> daemons = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (DaemonProcess d : daemons) {
            d.close();
        }
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    @Test
    void attachRidesThroughCutConnectionsWithTheExactByteStream() throws Exception {
        DaemonProcess daemon = DaemonProcess.start(tmp.resolve("root"));
        daemons.add(daemon);
        String id = daemon.spawn("count", TestPrograms.command(Counter.class, "0", "20"));
        TcpProxy proxy = new TcpProxy(daemon.port());
        closeables.add(proxy);

        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        Path stderr = tmp.resolve("attach.err");
        Process attach = attach(proxy.port(), daemon.token(), id, stdout, stderr);

        Diagnosis diagnosis = new Diagnosis(daemon, stdout, stderr, proxy, attach);
        diagnosis.awaitLines(20, Duration.ofSeconds(60), "the first lines");
        for (int cut = 0; cut < 3; cut++) {
            int seen = lines(stdout).size();
            proxy.cutAll();
            diagnosis.awaitLines(seen + 20, Duration.ofSeconds(30), "20 more lines after cut " + (cut + 1));
        }
        // A longer outage: the proxy refuses for a while; the counter keeps printing meanwhile.
        proxy.refuse(true);
        proxy.cutAll();
        Thread.sleep(1500);
        proxy.refuse(false);
        diagnosis.awaitLines(lines(stdout).size() + 40, Duration.ofSeconds(30), "40 more lines after the outage");

        daemon.closeSession(id);
        assertThat(attach.waitFor(30, TimeUnit.SECONDS)).as("attach exits after the session ends").isTrue();
        assertThat(attach.exitValue()).isZero();

        String out = stdout.toString(StandardCharsets.UTF_8);
        int trailer = out.lastIndexOf("\n[session " + id + " exited: ");
        assertThat(trailer).as("exit trailer in %s", tail(out)).isPositive();
        String body = out.substring(0, trailer);
        int count = lines(stdout).size();
        StringBuilder expected = new StringBuilder();
        for (int i = 1; i <= count; i++) {
            expected.append("line ").append(i).append("\r\n");
        }
        assertThat(firstDifference(body, expected.toString())).as("first difference from the exact counter stream").isEmpty();
        assertThat(Files.readString(stderr)).contains("limpet: reconnecting to 127.0.0.1… (attempt 1)");
    }

    @Test
    void noReconnectExitsOneWhenTheLinkIsCut() throws Exception {
        DaemonProcess daemon = DaemonProcess.start(tmp.resolve("root"));
        daemons.add(daemon);
        String id = daemon.spawn("count", TestPrograms.command(Counter.class, "0", "50"));
        TcpProxy proxy = new TcpProxy(daemon.port());
        closeables.add(proxy);
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        Path stderr = tmp.resolve("attach.err");
        Process attach = attach(proxy.port(), daemon.token(), id, stdout, stderr, "--no-reconnect");
        await().atMost(Duration.ofSeconds(60)).until(() -> lines(stdout).size() >= 3);
        proxy.cutAll();
        assertThat(attach.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(attach.exitValue()).isEqualTo(1);
        assertThat(Files.readString(stderr)).contains("lost the connection to 127.0.0.1").contains("--no-reconnect");
    }

    /**
     * Waits for the attach to have written some number of lines; on a timeout, says what each part
     * saw (the attach's own connection log, the daemon's log, the proxy's connections) instead of
     * only that a condition was not met.
     */
    private record Diagnosis(DaemonProcess daemon, ByteArrayOutputStream stdout, Path stderr, TcpProxy proxy, Process attach) {
        void awaitLines(int atLeast, Duration within, String what) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + within.toNanos();
            int last = -1;
            long lastChange = System.nanoTime();
            String stuck = null;
            while (System.nanoTime() < deadline) {
                int n = lines(stdout).size();
                if (n >= atLeast) {
                    return;
                }
                if (n != last) {
                    last = n;
                    lastChange = System.nanoTime();
                } else if (stuck == null && System.nanoTime() - lastChange > TimeUnit.SECONDS.toNanos(8)) {
                    stuck = threads(attach); // while it is stuck, before any keep-alive gives up on the link
                }
                Thread.sleep(50);
            }
            throw new AssertionError("no " + what + " within " + within.toSeconds() + " s: " + lines(stdout).size()
                    + " lines written, " + atLeast + " awaited; the proxy accepted " + proxy.accepted()
                    + " connections and its last cut closed " + proxy.lastCut() + " sockets"
                    + "\n--- attach stderr (tail) ---\n" + tail(Files.readString(stderr), 6000)
                    + "\n--- daemon log (tail) ---\n" + tail(daemon.log(), 6000)
                    + "\n--- attach threads when output stopped ---\n" + stuck);
        }
    }

    private static String threads(Process p) {
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(p.pid()), "Thread.print").redirectErrorStream(true).start();
            String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            jcmd.waitFor(10, TimeUnit.SECONDS);
            return out;
        } catch (IOException | InterruptedException e) {
            return "(no thread dump: " + e + ")";
        }
    }

    private Process attach(int port, String token, String id, ByteArrayOutputStream stdout, Path stderr, String... extra)
            throws IOException {
        List<String> command = new ArrayList<>(DaemonProcess.limpet());
        // The client's connection transitions go to its stderr: a failure can then say what it saw.
        command.add(command.indexOf("-jar"), "-Dlimpet.log.level=DEBUG");
        command.addAll(List.of("attach", id));
        command.addAll(List.of(extra));
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(stderr.toFile());
        pb.environment().putAll(Map.of("LIMPET_URL", "http://127.0.0.1:" + port + "/", "LIMPET_TOKEN", token,
                "XDG_CONFIG_HOME", tmp.resolve("cfg").toString()));
        Process p = pb.start();
        processes.add(p);
        Thread.ofPlatform().daemon(true).start(() -> {
            try (InputStream in = p.getInputStream()) {
                byte[] buffer = new byte[8192];
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    synchronized (stdout) {
                        stdout.write(buffer, 0, n);
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        return p;
    }

    private static final Pattern LINE = Pattern.compile("line (\\d+)\r\n");

    private static List<String> lines(ByteArrayOutputStream stdout) {
        String text;
        synchronized (stdout) {
            text = stdout.toString(StandardCharsets.UTF_8);
        }
        List<String> out = new ArrayList<>();
        Matcher m = LINE.matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** Empty when equal, else where and how the two streams part (readable, unlike a 10 kB diff). */
    private static String firstDifference(String actual, String expected) {
        int i = 0;
        while (i < actual.length() && i < expected.length() && actual.charAt(i) == expected.charAt(i)) {
            i++;
        }
        if (i == actual.length() && i == expected.length()) {
            return "";
        }
        return "at offset " + i + ": expected " + escape(expected.substring(i, Math.min(expected.length(), i + 40)))
                + " but got " + escape(actual.substring(i, Math.min(actual.length(), i + 40)))
                + " (after " + escape(actual.substring(Math.max(0, i - 40), i)) + ")";
    }

    private static String escape(String s) {
        return "'" + s.replace("\r", "\\r").replace("\n", "\\n").replace("\u001b", "\\e") + "'";
    }

    private static String tail(String s) {
        return tail(s, 300);
    }

    private static String tail(String s, int chars) {
        return s.length() > chars ? "…" + s.substring(s.length() - chars) : s;
    }

    /** Forwards TCP to the daemon; {@link #cutAll()} drops every live connection, {@link #refuse} closes new ones at once. */
    static final class TcpProxy implements AutoCloseable {
        private final ServerSocket server;
        private final int target;
        private final List<Socket> live = new ArrayList<>();
        private final AtomicInteger accepted = new AtomicInteger();
        private volatile boolean refusing;
        private volatile int lastCut;

        TcpProxy(int target) throws IOException {
            this.target = target;
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread.ofPlatform().daemon(true).name("proxy-accept").start(this::acceptLoop);
        }

        int port() {
            return server.getLocalPort();
        }

        int accepted() {
            return accepted.get();
        }

        void refuse(boolean refuse) {
            refusing = refuse;
        }

        void cutAll() {
            synchronized (live) {
                lastCut = live.size();
                for (Socket s : live) {
                    closeQuietly(s);
                }
                live.clear();
            }
        }

        /** How many sockets the last cut closed (two per connection). */
        int lastCut() {
            return lastCut;
        }

        private void acceptLoop() {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    accepted.incrementAndGet();
                    if (refusing) {
                        closeQuietly(client);
                        continue;
                    }
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                    synchronized (live) {
                        live.add(client);
                        live.add(upstream);
                    }
                    pump(client, upstream);
                    pump(upstream, client);
                } catch (IOException e) {
                    // closed, or the daemon refused: the client sees a dropped connection
                }
            }
        }

        private static void pump(Socket from, Socket to) {
            Thread.ofPlatform().daemon(true).start(() -> {
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    in.transferTo(out);
                } catch (IOException ignored) {
                    // cut
                } finally {
                    closeQuietly(from);
                    closeQuietly(to);
                }
            });
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            cutAll();
        }
    }
}
