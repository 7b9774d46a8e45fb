package dev.limpet.testkit.agents;

/** The model APIs a {@link FakeModelServer} speaks, one per agent CLI. */
public enum ModelApi {
    /** Anthropic's Messages API with SSE streaming: Claude Code ({@code ANTHROPIC_BASE_URL}). */
    ANTHROPIC,
    /** OpenAI's Responses API with SSE streaming: Codex (a {@code model_provider} with {@code wire_api = "responses"}). */
    OPENAI,
    /** Gemini's {@code :streamGenerateContent} (SSE) and {@code :generateContent}: Gemini CLI ({@code GOOGLE_GEMINI_BASE_URL}). */
    GEMINI
}
