package dev.limpet.testkit.agents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A model server on loopback that speaks what the three agent CLIs speak (Anthropic Messages with
 * SSE, OpenAI Responses with SSE, Gemini {@code streamGenerateContent}), so the real CLIs run
 * offline in tests. Every request is logged ({@link #requests()}), so a test reads the
 * conversation an agent sent: after a revive, the next request must hold that session's turns.
 *
 * <p>What the model says comes from a script ({@link #defaultScript}): a user turn holding
 * {@code run[[COMMAND]]} gets a call of the agent's shell tool (which the agent asks a person to
 * approve), a tool's result gets a short text, anything else a short text. One server serves every
 * API at once (each under its own paths), so one per test class is enough.
 *
 * <p>Threads: requests are served on virtual threads; the log is safe to read from any thread.
 */
public final class FakeModelServer implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern RUN = Pattern.compile("run\\[\\[(.+?)]]", Pattern.DOTALL);

    private final HttpServer server;
    private final List<ModelRequest> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger ids = new AtomicInteger();
    private volatile Function<ModelRequest, ModelReply> script = FakeModelServer::defaultScript;
    private volatile Consumer<ModelRequest> onRequest = r -> {};

    private FakeModelServer(HttpServer server) {
        this.server = server;
    }

    /** Starts a server on 127.0.0.1 and a free port. */
    public static FakeModelServer start() throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        FakeModelServer s = new FakeModelServer(http);
        http.createContext("/", s::handle);
        http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        http.start();
        return s;
    }

    /** {@code http://127.0.0.1:PORT} (no trailing slash). */
    public URI baseUri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Replaces the script (for a test that needs other answers). */
    public void script(Function<ModelRequest, ModelReply> replies) {
        this.script = replies;
    }

    /** The script every server starts with (see the class comment). */
    public static ModelReply defaultScript(ModelRequest r) {
        if (!r.offersTools()) {
            return new ModelReply.Text("limpet test title");
        }
        if (r.endsWithToolResult()) {
            return new ModelReply.Text("The command ran.");
        }
        String last = r.lastUserText().orElse("");
        Matcher m = RUN.matcher(last);
        if (m.find()) {
            return new ModelReply.Shell(m.group(1));
        }
        return new ModelReply.Text("Noted.");
    }

    /** Every request so far, oldest first. */
    public List<ModelRequest> requests() {
        return List.copyOf(requests);
    }

    /** The main-conversation requests (tools offered) of one API, oldest first. */
    public List<ModelRequest> conversations(ModelApi api) {
        return requests.stream().filter(r -> r.api() == api && r.offersTools()).toList();
    }

    /** Waits until a logged request matches (up to {@code timeout}); returns it. */
    public ModelRequest await(Predicate<ModelRequest> what, Duration timeout, String description) throws InterruptedException {
        Instant end = Instant.now().plus(timeout);
        while (Instant.now().isBefore(end)) {
            for (ModelRequest r : requests) {
                if (what.test(r)) {
                    return r;
                }
            }
            Thread.sleep(50);
        }
        StringBuilder seen = new StringBuilder();
        for (ModelRequest r : requests) {
            seen.append("\n  ").append(r.api()).append(' ').append(r.path()).append(" users=").append(r.userTexts());
        }
        throw new AssertionError("no request to the fake model server " + description + " within " + timeout + "; it saw:" + seen);
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getPath();
            byte[] raw = ex.getRequestBody().readAllBytes();
            JsonNode body = raw.length == 0 ? JSON.createObjectNode() : parse(raw);
            ModelApi api = path.contains("/v1beta/") || path.contains(":generateContent") || path.contains(":streamGenerateContent")
                    || path.contains(":countTokens") ? ModelApi.GEMINI : path.endsWith("/responses") ? ModelApi.OPENAI : ModelApi.ANTHROPIC;
            ModelRequest request = new ModelRequest(api, ex.getRequestMethod(), ex.getRequestURI().toString(),
                    Map.copyOf(ex.getRequestHeaders()), body, Instant.now());
            requests.add(request);
            onRequest.accept(request);
            if (!"POST".equals(ex.getRequestMethod())) {
                send(ex, 404, "application/json", "{\"error\":{\"message\":\"not served by the fake model server\"}}");
                return;
            }
            if (path.endsWith("/messages/count_tokens")) {
                send(ex, 200, "application/json", "{\"input_tokens\":42}");
            } else if (path.endsWith("/messages")) {
                anthropic(ex, request);
            } else if (path.endsWith("/responses")) {
                openai(ex, request);
            } else if (path.contains(":countTokens")) {
                send(ex, 200, "application/json", "{\"totalTokens\":42}");
            } else if (path.contains(":streamGenerateContent")) {
                gemini(ex, request, true);
            } else if (path.contains(":generateContent")) {
                gemini(ex, request, false);
            } else {
                send(ex, 404, "application/json", "{\"error\":{\"message\":\"not served by the fake model server\"}}");
            }
        }
    }

    private static JsonNode parse(byte[] raw) {
        try {
            return JSON.readTree(raw);
        } catch (IOException e) {
            return JSON.createObjectNode().put("unparsed", new String(raw, StandardCharsets.UTF_8));
        }
    }

    // --- Anthropic Messages -------------------------------------------------------------------

    private void anthropic(HttpExchange ex, ModelRequest r) throws IOException {
        ModelReply reply = script.apply(r);
        String id = "msg_" + ids.incrementAndGet();
        String model = r.body().path("model").asText("claude-test");
        ObjectNode block = JSON.createObjectNode();
        String stop;
        if (reply instanceof ModelReply.Shell(String command)) {
            block.put("type", "tool_use").put("id", "toolu_" + ids.incrementAndGet()).put("name", "Bash");
            block.putObject("input").put("command", command).put("description", "Run the command the test asked for");
            stop = "tool_use";
        } else {
            block.put("type", "text").put("text", ((ModelReply.Text) reply).text());
            stop = "end_turn";
        }
        ObjectNode usage = JSON.createObjectNode().put("input_tokens", 40).put("output_tokens", 10);
        if (!r.body().path("stream").asBoolean(false)) {
            ObjectNode msg = JSON.createObjectNode().put("id", id).put("type", "message").put("role", "assistant").put("model", model);
            msg.putArray("content").add(block);
            msg.put("stop_reason", stop).putNull("stop_sequence");
            msg.set("usage", usage);
            send(ex, 200, "application/json", msg.toString());
            return;
        }
        try (Sse sse = Sse.open(ex)) {
            ObjectNode message = JSON.createObjectNode().put("id", id).put("type", "message").put("role", "assistant").put("model", model);
            message.putArray("content");
            message.putNull("stop_reason").putNull("stop_sequence");
            message.set("usage", usage);
            sse.event("message_start", JSON.createObjectNode().put("type", "message_start").set("message", message));
            ObjectNode start = JSON.createObjectNode().put("type", "content_block_start").put("index", 0);
            ObjectNode delta = JSON.createObjectNode().put("type", "content_block_delta").put("index", 0);
            if (block.path("type").asText().equals("tool_use")) {
                ObjectNode empty = block.deepCopy();
                empty.putObject("input");
                start.set("content_block", empty);
                delta.putObject("delta").put("type", "input_json_delta").put("partial_json", block.path("input").toString());
            } else {
                start.putObject("content_block").put("type", "text").put("text", "");
                delta.putObject("delta").put("type", "text_delta").put("text", block.path("text").asText());
            }
            sse.event("content_block_start", start);
            sse.event("content_block_delta", delta);
            sse.event("content_block_stop", JSON.createObjectNode().put("type", "content_block_stop").put("index", 0));
            ObjectNode end = JSON.createObjectNode().put("type", "message_delta");
            end.putObject("delta").put("stop_reason", stop).putNull("stop_sequence");
            end.putObject("usage").put("output_tokens", 10);
            sse.event("message_delta", end);
            sse.event("message_stop", JSON.createObjectNode().put("type", "message_stop"));
        }
    }

    // --- OpenAI Responses ---------------------------------------------------------------------

    private void openai(HttpExchange ex, ModelRequest r) throws IOException {
        ModelReply reply = script.apply(r);
        String responseId = "resp_" + ids.incrementAndGet();
        ObjectNode item = JSON.createObjectNode();
        if (reply instanceof ModelReply.Shell(String command)) {
            String callId = "call_" + ids.incrementAndGet();
            item.put("type", "function_call").put("id", "fc_" + ids.incrementAndGet()).put("call_id", callId).put("status", "completed");
            item.put("name", codexShellTool(r)).put("arguments", codexShellArguments(r, command));
        } else {
            String text = ((ModelReply.Text) reply).text();
            item.put("type", "message").put("id", "msg_" + ids.incrementAndGet()).put("status", "completed").put("role", "assistant");
            item.putArray("content").addObject().put("type", "output_text").put("text", text).putArray("annotations");
        }
        ObjectNode response = JSON.createObjectNode().put("id", responseId).put("object", "response")
                .put("created_at", Instant.now().getEpochSecond()).put("model", r.body().path("model").asText("gpt-test"));
        try (Sse sse = Sse.open(ex)) {
            ObjectNode created = response.deepCopy().put("status", "in_progress");
            created.putArray("output");
            sse.event("response.created", JSON.createObjectNode().put("type", "response.created").set("response", created));
            ObjectNode added = JSON.createObjectNode().put("type", "response.output_item.added").put("output_index", 0);
            added.set("item", item);
            sse.event("response.output_item.added", added);
            if (item.path("type").asText().equals("message")) {
                String text = item.path("content").get(0).path("text").asText();
                sse.event("response.output_text.delta", JSON.createObjectNode().put("type", "response.output_text.delta")
                        .put("item_id", item.path("id").asText()).put("output_index", 0).put("content_index", 0).put("delta", text));
            }
            ObjectNode done = JSON.createObjectNode().put("type", "response.output_item.done").put("output_index", 0);
            done.set("item", item);
            sse.event("response.output_item.done", done);
            ObjectNode completed = response.deepCopy().put("status", "completed");
            completed.putArray("output").add(item);
            completed.putObject("usage").put("input_tokens", 40).put("output_tokens", 10).put("total_tokens", 50)
                    .<ObjectNode>set("input_tokens_details", JSON.createObjectNode().put("cached_tokens", 0))
                    .set("output_tokens_details", JSON.createObjectNode().put("reasoning_tokens", 0));
            sse.event("response.completed", JSON.createObjectNode().put("type", "response.completed").set("response", completed));
        }
    }

    /** The name of the shell tool Codex offered in this request (its tool set differs between versions and models). */
    static String codexShellTool(ModelRequest r) {
        List<String> offered = r.toolNames();
        for (String name : List.of("shell_command", "exec_command", "shell")) {
            if (offered.contains(name)) {
                return name;
            }
        }
        throw new IllegalStateException("Codex offered no shell tool this server knows; it offered " + offered);
    }

    static String codexShellArguments(ModelRequest r, String command) {
        ObjectNode args = JSON.createObjectNode();
        switch (codexShellTool(r)) {
            case "shell" -> args.putArray("command").add("bash").add("-lc").add(command);
            // Asked to run outside the sandbox, so Codex asks a person first, as Claude and Gemini do for any command.
            case "exec_command" -> args.put("cmd", command).put("sandbox_permissions", "require_escalated")
                    .put("justification", "The test asks to run this command");
            default -> args.put("command", command);
        }
        return args.toString();
    }

    // --- Gemini -------------------------------------------------------------------------------

    private void gemini(HttpExchange ex, ModelRequest r, boolean stream) throws IOException {
        ObjectNode part = JSON.createObjectNode();
        JsonNode config = r.body().path("generationConfig");
        if (!r.offersTools() && config.path("responseMimeType").asText().equals("application/json")) {
            // A side request asking for JSON (which speaker is next, is it looping, which model): the
            // answer that lets the conversation rest with the user.
            part.put("text", geminiJsonAnswer(config).toString());
        } else {
            ModelReply reply = script.apply(r);
            if (reply instanceof ModelReply.Shell(String command)) {
                part.putObject("functionCall").put("name", "run_shell_command").putObject("args").put("command", command)
                        .put("description", "Run the command the test asked for");
            } else {
                part.put("text", ((ModelReply.Text) reply).text());
            }
        }
        ObjectNode chunk = JSON.createObjectNode();
        ObjectNode candidate = ((ArrayNode) chunk.putArray("candidates")).addObject();
        candidate.putObject("content").put("role", "model").putArray("parts").add(part);
        candidate.put("finishReason", "STOP").put("index", 0);
        chunk.putObject("usageMetadata").put("promptTokenCount", 40).put("candidatesTokenCount", 10).put("totalTokenCount", 50);
        chunk.put("modelVersion", r.path().replaceAll(".*/models/([^:]+):.*", "$1"));
        if (!stream) {
            send(ex, 200, "application/json", chunk.toString());
            return;
        }
        try (Sse sse = Sse.open(ex)) {
            sse.data(chunk);
        }
    }

    /** A JSON object that fills the schema's required fields with harmless values. */
    static ObjectNode geminiJsonAnswer(JsonNode config) {
        JsonNode schema = config.has("responseJsonSchema") ? config.path("responseJsonSchema") : config.path("responseSchema");
        ObjectNode out = JSON.createObjectNode();
        JsonNode props = schema.path("properties");
        props.fieldNames().forEachRemaining(name -> {
            JsonNode p = props.path(name);
            String type = p.path("type").asText().toLowerCase(Locale.ROOT);
            if (p.has("enum") && p.path("enum").size() > 0) {
                String chosen = p.path("enum").get(0).asText();
                for (JsonNode e : p.path("enum")) {
                    if (e.asText().equals("user")) {
                        chosen = "user";
                    }
                }
                out.put(name, chosen);
            } else if (type.equals("number") || type.equals("integer")) {
                out.put(name, 0);
            } else if (type.equals("boolean")) {
                out.put(name, false);
            } else if (type.equals("array")) {
                out.putArray(name);
            } else if (type.equals("object")) {
                out.putObject(name);
            } else {
                out.put(name, name.equals("next_speaker") ? "user" : "none");
            }
        });
        return out;
    }

    // --- plumbing -----------------------------------------------------------------------------

    private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    /** A server-sent-events response, flushed event by event. */
    private record Sse(OutputStream out) implements AutoCloseable {
        static Sse open(HttpExchange ex) throws IOException {
            ex.getResponseHeaders().set("Content-Type", "text/event-stream");
            ex.getResponseHeaders().set("Cache-Control", "no-cache");
            ex.sendResponseHeaders(200, 0);
            return new Sse(ex.getResponseBody());
        }

        void event(String name, JsonNode data) throws IOException {
            out.write(("event: " + name + "\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        void data(JsonNode data) throws IOException {
            out.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }

    /**
     * Runs a server for tests outside the JVM (the browser suite): prints {@code http://127.0.0.1:PORT}
     * on stdout's first line, then appends each request as one JSON line to the file given as the
     * first argument (if any), until stdin closes.
     */
    public static void main(String[] args) throws Exception {
        try (FakeModelServer s = start()) {
            Path log = args.length > 0 ? Path.of(args[0]) : null;
            if (log != null) {
                s.onRequest = r -> {
                    ObjectNode line = JSON.createObjectNode().put("api", r.api().name()).put("method", r.method()).put("path", r.path());
                    line.set("users", JSON.valueToTree(r.userTexts()));
                    line.set("body", r.body());
                    synchronized (s) {
                        try {
                            Files.writeString(log, line + "\n", StandardOpenOption.CREATE,
                                    StandardOpenOption.APPEND);
                        } catch (IOException e) {
                            System.err.println("fake model server: cannot log to " + log + ": " + e);
                        }
                    }
                };
            }
            System.out.println(s.baseUri());
            System.out.flush();
            System.in.transferTo(OutputStream.nullOutputStream());
        }
    }

    /** Every logged request, one line each (for a failing test's message). */
    public String describe() {
        List<String> lines = new ArrayList<>();
        for (ModelRequest r : requests) {
            lines.add(r.api() + " " + r.method() + " " + r.path() + " tools=" + r.offersTools() + " users=" + r.userTexts());
        }
        return String.join("\n", lines);
    }
}
