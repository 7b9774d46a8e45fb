package dev.limpet.testkit.agents;

import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Catches every attempt to reach the internet from a network namespace that has only loopback and
 * routes every address to it ({@code ip route add local 0.0.0.0/0 dev lo}, as the real-agent
 * suite's JVM wrapper {@code it/offline/bin/java} sets up): DNS queries (to whatever resolver
 * {@code /etc/resolv.conf} names, now local) are logged by name and answered NXDOMAIN; connections
 * to ports 80 and 443 of any address are logged with the address and closed. A test that ran an
 * agent asserts {@link #attempts()} is empty: a CLI that tries to reach anything fails the suite,
 * naming what it tried.
 */
public final class NetworkTrap implements AutoCloseable {
    private final List<String> attempts = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> sockets = new ArrayList<>();

    private NetworkTrap() {}

    /**
     * Starts the trap; refuses (with what to do) when this JVM can reach more than loopback, so
     * the suite never runs with a way out.
     */
    public static NetworkTrap start() throws IOException {
        List<String> others = new ArrayList<>();
        for (NetworkInterface i : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!i.isLoopback() && i.isUp()) {
                others.add(i.getName());
            }
        }
        if (!others.isEmpty()) {
            throw new IllegalStateException("the real-agent suite runs only in a network namespace of its own (loopback only), and"
                    + " this JVM sees " + others + ": run it through Maven (the it module's real-agents execution starts its JVM"
                    + " with it/offline/bin/java)");
        }
        NetworkTrap trap = new NetworkTrap();
        try {
            trap.dns();
            trap.tcp(80);
            trap.tcp(443);
        } catch (IOException | RuntimeException e) {
            trap.close();
            throw e;
        }
        return trap;
    }

    /** What was tried so far: {@code dns NAME} and {@code tcp ADDRESS:PORT}, oldest first. */
    public List<String> attempts() {
        return List.copyOf(attempts);
    }

    private void dns() throws SocketException {
        DatagramSocket socket = new DatagramSocket(new InetSocketAddress("0.0.0.0", 53));
        sockets.add(socket);
        Thread.ofPlatform().daemon().name("network-trap-dns").start(() -> {
            byte[] buf = new byte[1500];
            while (!socket.isClosed()) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                    socket.receive(p);
                    String name = queryName(p.getData(), p.getLength());
                    attempts.add("dns " + name);
                    byte[] answer = nxdomain(p.getData(), p.getLength());
                    if (answer != null) {
                        socket.send(new DatagramPacket(answer, answer.length, p.getSocketAddress()));
                    }
                } catch (IOException e) {
                    // closed, or one bad packet: go on while open
                }
            }
        });
    }

    private void tcp(int port) throws IOException {
        ServerSocket server = new ServerSocket();
        server.bind(new InetSocketAddress("0.0.0.0", port));
        sockets.add(server);
        Thread.ofPlatform().daemon().name("network-trap-" + port).start(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    attempts.add("tcp " + s.getLocalAddress().getHostAddress() + ":" + port + sni(s));
                } catch (IOException e) {
                    // closed
                }
            }
        });
    }

    /** The host a TLS client named (its ClientHello's server name), when it says so at once. */
    private static String sni(Socket s) {
        try {
            s.setSoTimeout(500);
            InputStream in = s.getInputStream();
            byte[] hello = in.readNBytes(2048);
            String text = new String(hello, StandardCharsets.ISO_8859_1);
            Matcher m = Pattern.compile("([a-z0-9-]+(\\.[a-z0-9-]+)+)").matcher(text);
            return m.find() ? " (" + m.group(1) + ")" : "";
        } catch (IOException e) {
            return "";
        }
    }

    static String queryName(byte[] d, int len) {
        StringBuilder name = new StringBuilder();
        int i = 12;
        while (i < len && d[i] != 0) {
            int n = d[i] & 0xff;
            if (n > 63 || i + 1 + n > len) {
                return "(malformed query)";
            }
            if (!name.isEmpty()) {
                name.append('.');
            }
            name.append(new String(d, i + 1, n, StandardCharsets.US_ASCII));
            i += 1 + n;
        }
        return name.toString();
    }

    /** The query echoed back as an answer with RCODE 3 (no such name). */
    static byte[] nxdomain(byte[] q, int len) {
        if (len < 12) {
            return null;
        }
        byte[] a = Arrays.copyOf(q, len);
        a[2] = (byte) (0x80 | (q[2] & 0x01)); // QR, the query's RD
        a[3] = (byte) 0x83; // RA, NXDOMAIN
        a[6] = a[7] = a[8] = a[9] = a[10] = a[11] = 0; // no answer, authority or additional records
        return a;
    }

    @Override
    public void close() {
        for (AutoCloseable s : sockets) {
            try {
                s.close();
            } catch (Exception e) {
                // closing anyway
            }
        }
    }
}
