package dev.limpet.daemon.backend.tmux;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A tmux version as {@code tmux -V} prints it ({@code tmux 3.3a}, {@code tmux next-3.4},
 * {@code tmux 3.2-rc2}). The backend needs {@value #MINIMUM_TEXT}: control-mode flow control
 * ({@code refresh-client -f pause-after}, {@code -A %pane:pause|continue}), format subscriptions
 * ({@code refresh-client -B}) and {@code new-session -e}.
 */
public record TmuxVersion(int major, int minor, String text) implements Comparable<TmuxVersion> {
    static final String MINIMUM_TEXT = "3.2";
    public static final TmuxVersion MINIMUM = new TmuxVersion(3, 2, "tmux 3.2");
    private static final Pattern NUMBER = Pattern.compile("(\\d+)\\.(\\d+)");

    /**
     * @throws IllegalArgumentException when the text names no version (a {@code master} build does
     *     not say what it can do)
     */
    public static TmuxVersion parse(String versionOutput) {
        String text = versionOutput == null ? "" : versionOutput.strip();
        Matcher m = NUMBER.matcher(text);
        if (!text.startsWith("tmux ") || !m.find()) {
            throw new IllegalArgumentException("cannot read a tmux version from '" + text + "'");
        }
        return new TmuxVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), text);
    }

    public boolean isSupported() {
        return compareTo(MINIMUM) >= 0;
    }

    @Override
    public int compareTo(TmuxVersion o) {
        return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
    }

    @Override
    public String toString() {
        return text;
    }
}
