package dev.limpet.daemon.backend.tmux;

import dev.limpet.terminal.pty.ExitStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a tmux pane's captured screen says and how it goes back into a stream, without tmux: the
 * exit status tmux writes on a dead pane, that line left out of a repaint, and the repaint itself.
 */
final class PaneScreen {
    private static final Pattern DEAD_LINE = Pattern.compile("Pane is dead \\((status|signal) (\\d+)");
    private static final Pattern DEAD_PANE_LINE = Pattern.compile("Pane is dead \\((status|signal) \\d+, [^)]*\\)");

    private PaneScreen() {}

    /** The status tmux wrote on a dead pane; null when it has not (yet). */
    static ExitStatus deadStatus(List<String> screen) {
        for (int i = screen.size() - 1; i >= 0; i--) {
            Matcher m = DEAD_LINE.matcher(screen.get(i));
            if (m.find()) {
                int n = Integer.parseInt(m.group(2));
                return m.group(1).equals("signal") ? ExitStatus.killedBy(n) : ExitStatus.exited(n);
            }
        }
        return null;
    }

    /**
     * The screen without the line tmux writes on a dead pane ("Pane is dead (status 0, …)", bold,
     * on the last line): it is tmux's, not the program's, and never reaches the stream as output.
     */
    static List<String> withoutDeadPaneLine(List<String> lines) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            String plain = lines.get(i).replaceAll("\u001b\\[[0-9;]*m", "").strip();
            if (plain.isEmpty()) {
                continue;
            }
            if (DEAD_PANE_LINE.matcher(plain).matches()) {
                List<String> out = new ArrayList<>(lines);
                out.remove(i);
                return out;
            }
            return lines;
        }
        return lines;
    }

    /** ANSI that redraws tmux's screen: its lines (with their colours) at their rows, then the cursor. */
    static byte[] repaint(List<String> lines, int cursorX, int cursorY, boolean alternate) {
        StringBuilder sb = new StringBuilder();
        sb.append(alternate ? "\u001b[?1049h" : "\u001b[?1049l");
        sb.append("\u001b[0m\u001b[H\u001b[2J");
        for (int i = 0; i < lines.size(); i++) {
            sb.append("\u001b[").append(i + 1).append(";1H").append(lines.get(i)).append("\u001b[0m");
        }
        sb.append("\u001b[").append(cursorY + 1).append(';').append(cursorX + 1).append('H');
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }
}
