package dev.limpet.daemon.backend;

/**
 * Optional backend ability: whether a session's program turned on bracketed paste (DECSET 2004),
 * as its screen model saw it. Text typed for a person is then sent as a paste, so a program that
 * takes a burst of keys as a paste (Codex, Gemini CLI) still takes the Enter after it as Enter.
 */
public interface PasteMode {
    boolean bracketedPaste(String sessionId);
}
