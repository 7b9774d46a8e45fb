package dev.limpet.client.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.protocol.ProtocolCodec;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * The daemon's REST API as the CLI verbs use it. Errors come back as {@link CliException}s with the
 * daemon's code in the message and the verb's documented exit code.
 */
public final class DaemonHttp {
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    private final DaemonEndpoint endpoint;
    private final HttpClient http;

    public DaemonHttp(DaemonEndpoint endpoint) {
        this.endpoint = endpoint;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    }

    public DaemonEndpoint endpoint() {
        return endpoint;
    }

    public JsonNode get(String path) {
        return send("GET", path, null);
    }

    public JsonNode post(String path, Object body) {
        return send("POST", path, body);
    }

    public JsonNode delete(String path) {
        return send("DELETE", path, null);
    }

    private JsonNode send(String method, String path, Object body) {
        URI uri = endpoint.baseUrl().resolve(path.startsWith("/") ? path.substring(1) : path);
        HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(TIMEOUT)
                .header("Authorization", "Bearer " + endpoint.token())
                .header("Accept", "application/json");
        if (body != null) {
            req.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(ProtocolCodec.write(body)));
        } else {
            req.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> res;
        try {
            res = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw DaemonLocator.noDaemon(endpoint.baseUrl().toString());
        } catch (HttpTimeoutException e) {
            throw new CliException(CliException.NO_DAEMON, "the limpet daemon at " + endpoint.baseUrl() + " did not answer in time");
        } catch (IOException e) {
            throw new CliException(CliException.NO_DAEMON, "cannot reach the limpet daemon at " + endpoint.baseUrl() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(CliException.FAILED, "interrupted");
        }
        JsonNode json = parse(res.body());
        if (res.statusCode() >= 400) {
            String code = json.path("code").asText("http_" + res.statusCode());
            String message = json.path("message").asText(res.body());
            int exit = switch (code) {
                case "session_not_found", "ambiguous_session", "invalid_session_id" -> CliException.NO_SESSION;
                case "unauthorized" -> CliException.NO_DAEMON;
                default -> CliException.FAILED;
            };
            if (code.equals("unauthorized")) {
                message = "the daemon at " + endpoint.baseUrl() + " refused our token (is it another daemon's auth-token?)";
            }
            throw new CliException(exit, message + " (" + code + ")");
        }
        return json;
    }

    private static JsonNode parse(String body) {
        try {
            return ProtocolCodec.mapper().readTree(body.isBlank() ? "{}" : body);
        } catch (IOException e) {
            return ProtocolCodec.mapper().createObjectNode().put("message", body);
        }
    }
}
