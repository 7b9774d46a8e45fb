package dev.limpet.client.cli;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;

/**
 * The daemon's REST API as the CLI verbs use it. Errors come back as {@link CliException}s with the
 * daemon's code in the message and the verb's documented exit code.
 */
public final class DaemonHttp {
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    /**
     * For a call that starts a program ({@code new}, {@code revive}): the daemon answers once the
     * program's worker is up, and a worker is given as long as it makes progress (on a loaded
     * machine a healthy one can take minutes; the daemon gives up on a hung one itself), so the
     * CLI's own bound is only past the daemon's.
     */
    public static final Duration STARTS_A_PROGRAM = Duration.ofMinutes(6);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(3);
    private final DaemonEndpoint endpoint;

    public DaemonHttp(DaemonEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    public DaemonEndpoint endpoint() {
        return endpoint;
    }

    public JsonTree get(String path) {
        return send("GET", path, null, TIMEOUT);
    }

    public JsonTree post(String path, Object body) {
        return send("POST", path, body, TIMEOUT);
    }

    /** A POST whose answer may take up to {@code timeout} (see {@link #STARTS_A_PROGRAM}). */
    public JsonTree post(String path, Object body, Duration timeout) {
        return send("POST", path, body, timeout);
    }

    public JsonTree delete(String path) {
        return send("DELETE", path, null, TIMEOUT);
    }

    private JsonTree send(String method, String path, Object body, Duration timeout) {
        URI uri = endpoint.baseUrl().resolve(path.startsWith("/") ? path.substring(1) : path);
        String json = body == null ? null : JsonTree.write(body);
        PlainHttp.Response res;
        try {
            // Plain http (the local daemon, on loopback): a socket of our own, no java.net.http (see
            // PlainHttp). https (a remote host): the JDK client, loaded only then.
            res = uri.getScheme().equals("http")
                    ? PlainHttp.exchange(uri, method, endpoint.token(), json, CONNECT_TIMEOUT, timeout)
                    : Tls.exchange(uri, method, endpoint.token(), json);
        } catch (ConnectException e) {
            throw DaemonLocator.noDaemon(endpoint.baseUrl().toString());
        } catch (SocketTimeoutException e) {
            throw new CliException(CliException.NO_DAEMON, "the limpet daemon at " + endpoint.baseUrl() + " did not answer in time");
        } catch (IOException e) {
            throw new CliException(CliException.NO_DAEMON, "cannot reach the limpet daemon at " + endpoint.baseUrl() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(CliException.FAILED, "interrupted");
        }
        JsonTree answer = parse(res.body());
        if (res.status() >= 400) {
            String code = answer.path("code").text("http_" + res.status());
            String message = answer.path("message").text(res.body());
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
        return answer;
    }

    /** https daemons: the JDK's client, in a class of its own so plain-http verbs never load it. */
    private static final class Tls {
        static PlainHttp.Response exchange(URI uri, String method, String token, String json) throws IOException, InterruptedException {
            HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
            HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(TIMEOUT)
                    .header("Authorization", "Bearer " + token)
                    .header("Accept", "application/json");
            if (json != null) {
                req.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
            } else {
                req.method(method, HttpRequest.BodyPublishers.noBody());
            }
            HttpResponse<String> res;
            try {
                res = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
            } catch (HttpTimeoutException e) {
                // as PlainHttp says it: the caller never names a java.net.http type
                throw new SocketTimeoutException(e.getMessage());
            }
            return new PlainHttp.Response(res.statusCode(), res.body());
        }
    }

    private static JsonTree parse(String body) {
        try {
            return JsonTree.parse(body.isBlank() ? "{}" : body);
        } catch (IOException e) {
            return new JsonTree(Map.of("message", body));
        }
    }
}
