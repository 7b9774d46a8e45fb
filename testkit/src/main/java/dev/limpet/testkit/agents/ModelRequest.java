package dev.limpet.testkit.agents;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One request an agent CLI sent to a {@link FakeModelServer}, as logged: which API, the path, the
 * headers and the JSON body, read through the API's own shape so a test sees the conversation the
 * agent sent (its user turns, whether it ends with a tool's result) without knowing the dialect.
 */
public record ModelRequest(ModelApi api, String method, String path, Map<String, List<String>> headers, JsonNode body, Instant at) {

    /** The texts of every user turn in the conversation sent, oldest first. */
    public List<String> userTexts() {
        List<String> out = new ArrayList<>();
        switch (api) {
            case ANTHROPIC -> body.path("messages").forEach(m -> {
                if ("user".equals(m.path("role").asText())) {
                    texts(m.path("content"), "text", out);
                }
            });
            case OPENAI -> body.path("input").forEach(item -> {
                if ("user".equals(item.path("role").asText())) {
                    texts(item.path("content"), "input_text", out);
                }
            });
            case GEMINI -> body.path("contents").forEach(c -> {
                if ("user".equals(c.path("role").asText())) {
                    c.path("parts").forEach(p -> {
                        if (p.has("text")) {
                            out.add(p.path("text").asText());
                        }
                    });
                }
            });
        }
        return out;
    }

    /** Everything the conversation holds as text (user, model, tool calls and results), for "was this said" checks. */
    public String conversationText() {
        JsonNode turns = switch (api) {
            case ANTHROPIC -> body.path("messages");
            case OPENAI -> body.path("input");
            case GEMINI -> body.path("contents");
        };
        return turns.toString();
    }

    /** Whether the agent offered the model tools: its main conversation, not a side request (a title, a check). */
    public boolean offersTools() {
        return switch (api) {
            case ANTHROPIC, OPENAI -> body.path("tools").size() > 0;
            case GEMINI -> body.path("tools").size() > 0 && path.contains(":streamGenerateContent");
        };
    }

    /** The names of the tools offered. */
    public List<String> toolNames() {
        List<String> out = new ArrayList<>();
        switch (api) {
            case ANTHROPIC, OPENAI -> body.path("tools").forEach(t -> out.add(t.path("name").asText()));
            case GEMINI -> body.path("tools").forEach(t -> t.path("functionDeclarations").forEach(f -> out.add(f.path("name").asText())));
        }
        return out;
    }

    /** The tool offered under {@code name}, or a missing node. */
    JsonNode tool(String name) {
        for (JsonNode t : body.path("tools")) {
            if (name.equals(t.path("name").asText())) {
                return t;
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    /** Whether the last turn is a tool's result (the model is to go on after running a tool). */
    public boolean endsWithToolResult() {
        return switch (api) {
            case ANTHROPIC -> {
                JsonNode last = last(body.path("messages"));
                boolean found = false;
                for (JsonNode b : last.path("content")) {
                    found |= "tool_result".equals(b.path("type").asText());
                }
                yield found;
            }
            case OPENAI -> last(body.path("input")).path("type").asText().endsWith("_output");
            case GEMINI -> {
                boolean found = false;
                for (JsonNode p : last(body.path("contents")).path("parts")) {
                    found |= p.has("functionResponse");
                }
                yield found;
            }
        };
    }

    /** The last user turn's text, if the conversation ends with one. */
    public Optional<String> lastUserText() {
        List<String> texts = userTexts();
        return texts.isEmpty() ? Optional.empty() : Optional.of(texts.getLast());
    }

    private static JsonNode last(JsonNode array) {
        return array.size() == 0 ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : array.get(array.size() - 1);
    }

    private static void texts(JsonNode content, String type, List<String> out) {
        if (content.isTextual()) {
            out.add(content.asText());
            return;
        }
        content.forEach(b -> {
            if (type.equals(b.path("type").asText())) {
                out.add(b.path("text").asText());
            }
        });
    }
}
