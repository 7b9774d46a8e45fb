package dev.limpet.terminal.pty;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the file to execute for {@code argv[0]}. Done here rather than with {@code posix_spawnp}
 * because that searches the daemon's {@code PATH}, while a session's own {@code PATH} is what a user
 * expects, and because a miss can be reported before any descriptor is opened.
 */
public final class ExecutableResolver {
    private ExecutableResolver() {}

    /**
     * A name with a slash is used as it is (relative to the child's working directory); otherwise
     * the first executable regular file named so in {@code PATH}. Empty {@code PATH} entries mean
     * the working directory, as for a shell.
     */
    public static Optional<String> resolve(String name, Map<String, String> env, Path cwd) {
        if (name.indexOf('/') >= 0) {
            return Optional.of(name);
        }
        String path = env.getOrDefault("PATH", System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"));
        Path base = cwd != null ? cwd : Path.of("").toAbsolutePath();
        for (String dir : path.split(File.pathSeparator, -1)) {
            Path candidate = base.resolve(dir.isEmpty() ? "." : dir).resolve(name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate.toString());
            }
        }
        return Optional.empty();
    }
}
