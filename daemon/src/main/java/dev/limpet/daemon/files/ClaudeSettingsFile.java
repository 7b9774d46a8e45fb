package dev.limpet.daemon.files;

import dev.limpet.daemon.activity.ClaudeHookSettings;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code <data_root>/hooks/claude-settings.json}: the Claude Code settings whose hooks
 * run {@code limpet hook}, written at every daemon start so it always names this daemon's runtime.
 * The directory is private (0700, ours, no symbolic link on the way); the file is written 0600 to a
 * temporary file and renamed over the old one, so a symbolic link put in its place is replaced,
 * never written through.
 */
public final class ClaudeSettingsFile {
    public static final String NAME = "claude-settings.json";
    /** The class whose main runs every limpet verb ({@code hook} among them); the daemon starts it by name. */
    public static final String CLI_MAIN_CLASS = "dev.limpet.app.Main";

    private ClaudeSettingsFile() {}

    /**
     * The argv of {@code limpet hook}: this JVM by absolute path, with fast-start flags, on
     * {@code classPath} (the daemon's private runtime copy of its jar).
     */
    public static List<String> hookCommand(Path javaHome, String classPath) {
        List<String> argv = new ArrayList<>(List.of(javaHome.resolve("bin").resolve("java").toAbsolutePath().toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", classPath, CLI_MAIN_CLASS, "hook"));
        return List.copyOf(argv);
    }

    /** Writes (or rewrites) the file; returns its path. */
    public static Path write(DataRoot root, List<String> hookCommand) throws IOException {
        Path dir = PrivateFiles.directory(root.hooks());
        Path file = dir.resolve(NAME);
        PrivateFiles.writeAtomically(file, ClaudeHookSettings.json(hookCommand));
        return file;
    }
}
