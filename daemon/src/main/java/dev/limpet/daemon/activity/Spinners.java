package dev.limpet.daemon.activity;

/**
 * Recognises the spinner agents put at the start of the terminal title while they work. The one
 * place to teach limpet a new agent's spinner glyphs.
 */
final class Spinners {
    private Spinners() {}

    /**
     * Whether {@code title} starts with a spinner glyph: a braille pattern other than the blank one
     * (U+2801–U+28FF: the dots spinners of Codex, Gemini CLI, Claude Code and most CLI libraries) or
     * a quarter-circle frame (◐◓◑◒, ◴◷◶◵). Leading spaces are skipped. Deliberately not the
     * asterisk-like glyphs (✳ ✻ ✶): Claude Code shows ✳ in an idle title.
     */
    static boolean leadsWithSpinner(String title) {
        if (title == null) {
            return false;
        }
        String t = title.stripLeading();
        if (t.isEmpty()) {
            return false;
        }
        int cp = t.codePointAt(0);
        return (cp > 0x2800 && cp <= 0x28FF) || "◐◓◑◒◴◷◶◵".indexOf(cp) >= 0;
    }
}
