package dev.limpet.client.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which commands may open a page in a browser, in the order {@code limpet open} tries them: each
 * entry of {@code $BROWSER} (a colon-separated list of commands, as Python's {@code webbrowser} and
 * {@code man} read it; {@code %s} stands for the address, else it is appended), then
 * {@code xdg-open} when it is on the {@code PATH} and a graphical session is present. Without a
 * display, xdg-open would start a text browser that wants the terminal, so it is left out.
 */
final class BrowserCommands {
    private BrowserCommands() {}

    static List<List<String>> candidates(String browserEnv, Path xdgOpen, boolean graphical, String target) {
        List<List<String>> out = new ArrayList<>();
        if (browserEnv != null) {
            for (String entry : browserEnv.split(":")) {
                List<String> argv = argv(entry, target);
                if (!argv.isEmpty()) {
                    out.add(argv);
                }
            }
        }
        if (xdgOpen != null && graphical) {
            out.add(List.of(xdgOpen.toString(), target));
        }
        return out;
    }

    /** Whether the environment names a display a graphical browser could open on. */
    static boolean graphical(String display, String waylandDisplay) {
        return (display != null && !display.isBlank()) || (waylandDisplay != null && !waylandDisplay.isBlank());
    }

    /** The first executable file called {@code name} in the directories of {@code pathEnv}, or null. */
    static Path onPath(String name, String pathEnv) {
        if (pathEnv == null) {
            return null;
        }
        for (String dir : pathEnv.split(":")) {
            if (dir.isBlank()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static List<String> argv(String entry, String target) {
        List<String> words = new ArrayList<>(Arrays.stream(entry.strip().split("\\s+")).filter(w -> !w.isEmpty()).toList());
        if (words.isEmpty()) {
            return List.of();
        }
        boolean placed = false;
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (w.contains("%s")) {
                placed = true;
            }
            words.set(i, substitute(w, target));
        }
        if (!placed) {
            words.add(target);
        }
        return List.copyOf(words);
    }

    /** {@code %s} becomes the address and {@code %%} a single {@code %}. */
    private static String substitute(String word, String target) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            if (c == '%' && i + 1 < word.length() && word.charAt(i + 1) == 's') {
                b.append(target);
                i++;
            } else if (c == '%' && i + 1 < word.length() && word.charAt(i + 1) == '%') {
                b.append('%');
                i++;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
