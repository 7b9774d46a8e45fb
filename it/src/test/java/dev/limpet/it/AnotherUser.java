package dev.limpet.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The attacker of the cross-user probes: a throwaway unprivileged user (a uid no account has),
 * played with {@code setpriv}. Only root can become it; {@link #find()} is empty otherwise and the
 * tests skip, saying why.
 */
final class AnotherUser {
    final int uid;

    private AnotherUser(int uid) {
        this.uid = uid;
    }

    static Optional<AnotherUser> find() throws IOException {
        if (!isRoot() || !Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
            return Optional.empty();
        }
        List<String> passwd = Files.readAllLines(Path.of("/etc/passwd"));
        for (int uid = 62000 + (int) (ProcessHandle.current().pid() % 900); uid < 63000; uid++) {
            String id = Integer.toString(uid);
            if (passwd.stream().noneMatch(l -> l.split(":").length > 2 && l.split(":")[2].equals(id))) {
                return Optional.of(new AnotherUser(uid));
            }
        }
        return Optional.empty();
    }

    static String skipMessage() {
        return "needs root and /usr/bin/setpriv to act as another (throwaway) user";
    }

    /** Runs a shell script as this user; fails the test when it fails. */
    void sh(String script) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("/usr/bin/setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "/bin/sh", "-c", script)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("as uid " + uid + ": " + script + " failed: " + out);
        }
    }

    private static boolean isRoot() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                return line.substring(4).trim().split("\\s+")[1].equals("0");
            }
        }
        return false;
    }
}
