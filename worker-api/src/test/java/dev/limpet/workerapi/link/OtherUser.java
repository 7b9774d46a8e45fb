package dev.limpet.workerapi.link;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A throwaway unprivileged user for cross-user tests: a uid nobody on this machine has, taken on
 * with {@code setpriv} (util-linux). Only root can do that; {@link #find()} is empty otherwise,
 * and tests skip with a message saying so.
 */
final class OtherUser {
    final int uid;

    private OtherUser(int uid) {
        this.uid = uid;
    }

    static Optional<OtherUser> find() {
        if (!"0".equals(uidOfThisProcess()) || !Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
            return Optional.empty();
        }
        for (int uid = 61000 + (int) (ProcessHandle.current().pid() % 900); uid < 62000; uid++) {
            if (!Files.exists(Path.of("/home/" + uid)) && !passwdHas(uid)) {
                return Optional.of(new OtherUser(uid));
            }
        }
        return Optional.empty();
    }

    static String skipMessage() {
        return "needs root and /usr/bin/setpriv to act as another user";
    }

    /** Starts {@code command} as this user (its own uid and gid, no supplementary groups). */
    Process start(List<String> command) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"));
        cmd.addAll(command);
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    private static boolean passwdHas(int uid) {
        try {
            return Files.readAllLines(Path.of("/etc/passwd")).stream().anyMatch(l -> l.split(":", 4).length > 2 && l.split(":", 4)[2].equals(
                    Integer.toString(uid)));
        } catch (IOException e) {
            return true;
        }
    }

    private static String uidOfThisProcess() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.substring(4).trim().split("\\s+")[1];
                }
            }
        } catch (IOException ignored) {
            // unknown: not root
        }
        return "?";
    }
}
