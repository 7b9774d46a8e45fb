package dev.limpet.daemon.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.protocol.Activity;
import dev.limpet.protocol.ClientMessage;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ServerMessage;
import dev.limpet.protocol.SessionInfo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hook reports through the daemon's REST API, against real PTYs ({@code limpet hook} end to end: {@code AgentActivityIT}). */
class ActivityHooksTest {
    @TempDir
    Path root;
    DaemonHarness d;
    WsTestClient c;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        d = new DaemonHarness(root);
        c = d.client("activity-key");
    }

    @AfterEach
    void stop() {
        c.close();
        d.close();
    }

    record Answer(int status, JsonNode body) {}

    Answer report(String id, String state) throws Exception {
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.port() + "/api/sessions/" + id
                + "/activity")).header("Authorization", "Bearer " + d.token()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"activity\":\"" + state + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(res.statusCode(), ProtocolCodec.mapper().readTree(res.body()));
    }

    SessionInfo listed(String id) {
        String req = "l-" + System.nanoTime();
        c.send(new ClientMessage.ListSessions(req));
        return c.await(ServerMessage.SessionList.class, l -> req.equals(l.reqId())).sessions().stream()
                .filter(s -> s.id().equals(id)).findFirst().orElseThrow();
    }

    SessionInfo sleeper() {
        return d.spawn(c, List.of("sh", "-c", "echo \"id=$LIMPET_SESSION_ID home=$LIMPET_HOME\"; exec sleep 1000"));
    }

    @Test
    void everySessionKnowsItsIdAndItsDaemonsHome() {
        SessionInfo s = sleeper();
        d.attach(c, s.id(), 0L);
        await().atMost(Duration.ofSeconds(15)).until(() -> c.outputOf(s.id()).contains("id=" + s.id() + " home=" + root));
    }

    @Test
    void aReportIsPushedAsSessionStateAndListedAsTheSessionsActivity() throws Exception {
        SessionInfo s = sleeper();
        assertThat(s.activity()).isEqualTo(Activity.UNKNOWN);
        Answer a = report(s.id(), "waiting_input");
        assertThat(a.status()).isEqualTo(200);
        assertThat(a.body().path("activity").asText()).isEqualTo("waiting_input");
        c.await(ServerMessage.SessionState.class, e -> e.sessionId().equals(s.id()) && e.activity() == Activity.WAITING_INPUT);
        assertThat(listed(s.id()).activity()).isEqualTo(Activity.WAITING_INPUT);
        report(s.id(), "pending_approval");
        c.await(ServerMessage.SessionState.class, e -> e.sessionId().equals(s.id()) && e.activity() == Activity.PENDING_APPROVAL);
        assertThat(listed(s.id()).activity()).isEqualTo(Activity.PENDING_APPROVAL);
    }

    @Test
    void aReportMayNameItsSessionByLabelAsEveryVerbTakesIt() throws Exception {
        SessionInfo s = sleeper();
        HttpResponse<String> renamed = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.port() + "/api/sessions/"
                + s.id() + "/rename")).header("Authorization", "Bearer " + d.token()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"label\":\"agent-10\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(renamed.statusCode()).as(renamed.body()).isEqualTo(200);
        assertThat(report("agent-10", "waiting_input").status()).isEqualTo(200);
        assertThat(listed(s.id()).activity()).isEqualTo(Activity.WAITING_INPUT);
        assertThat(report("no-such-label", "working").body().path("code").asText()).isEqualTo("session_not_found");
    }

    @Test
    void aWaitingSessionCarriesTheLineItWaitsOnAndAPersonsAnswerClearsIt() throws Exception {
        SessionInfo s = d.spawn(c, List.of("sh", "-c", "printf 'deploy to production?\\n\\nContinue? [y/N] '; read answer; echo got $answer; exec sleep 1000"));
        d.attach(c, s.id(), 0L);
        await().atMost(Duration.ofSeconds(15)).until(() -> c.outputOf(s.id()).contains("Continue?"));
        report(s.id(), "pending_approval");
        ServerMessage.SessionState told = c.await(ServerMessage.SessionState.class,
                e -> e.sessionId().equals(s.id()) && e.activity() == Activity.PENDING_APPROVAL && e.waitingLine() != null);
        assertThat(told.waitingLine()).isEqualTo("Continue? [y/N]");
        assertThat(listed(s.id()).waitingLine()).isEqualTo("Continue? [y/N]");
        c.send(new ClientMessage.PtyInput(null, s.id(), "y\r"));
        c.await(ServerMessage.SessionState.class, e -> e.sessionId().equals(s.id()) && e.activity() == Activity.WORKING);
        SessionInfo after = listed(s.id());
        assertThat(after.activity()).isEqualTo(Activity.WORKING);
        assertThat(after.waitingLine()).isNull();
        // The agent reporting again raises it again.
        report(s.id(), "waiting_input");
        c.await(ServerMessage.SessionState.class, e -> e.sessionId().equals(s.id()) && e.activity() == Activity.WAITING_INPUT);
    }

    @Test
    void aTerminalsReplyDoesNotAnswerAWaitingSession() throws Exception {
        SessionInfo s = sleeper();
        d.attach(c, s.id(), 0L);
        report(s.id(), "waiting_input");
        c.await(ServerMessage.SessionState.class, e -> e.sessionId().equals(s.id()) && e.activity() == Activity.WAITING_INPUT);
        c.send(new ClientMessage.PtyInput(null, s.id(), "\u001b[1;1R", true));
        // A round trip after the reply: the list is answered after the reply was taken.
        Thread.sleep(300);
        assertThat(listed(s.id()).activity()).isEqualTo(Activity.WAITING_INPUT);
    }

    @Test
    void repeatedReportsOfTheSameStateAreCoalescedIntoOneEvent() throws Exception {
        SessionInfo s = sleeper();
        for (int i = 0; i < 200; i++) {
            assertThat(report(s.id(), "working").status()).isEqualTo(200);
        }
        report(s.id(), "waiting_input");
        List<Activity> seen = new ArrayList<>();
        while (!seen.contains(Activity.WAITING_INPUT)) {
            ServerMessage m = c.messages.poll(20, TimeUnit.SECONDS);
            assertThat(m).as("a session_state for waiting_input").isNotNull();
            if (m instanceof ServerMessage.SessionState st && st.sessionId().equals(s.id())) {
                seen.add(st.activity());
            }
        }
        assertThat(seen).containsExactly(Activity.WORKING, Activity.WAITING_INPUT);
    }

    @Test
    void anUnknownStateIsRefusedWithInvalidActivityAndChangesNothing() throws Exception {
        SessionInfo s = sleeper();
        report(s.id(), "waiting_input");
        for (String bad : List.of("waiting", "unknown", "WORKING", "")) {
            Answer a = report(s.id(), bad);
            assertThat(a.status()).as(bad).isEqualTo(400);
            assertThat(a.body().path("code").asText()).isEqualTo("invalid_activity");
            assertThat(a.body().path("message").asText()).contains("working, waiting_input, pending_approval, idle");
        }
        assertThat(listed(s.id()).activity()).isEqualTo(Activity.WAITING_INPUT);
    }

    Answer post(String id, String json) throws Exception {
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.port() + "/api/sessions/" + id
                + "/activity")).header("Authorization", "Bearer " + d.token()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(res.statusCode(), ProtocolCodec.mapper().readTree(res.body()));
    }

    @Test
    void aReportMayCarryTheAgentsConversationIdAndABadOneChangesNothing() throws Exception {
        SessionInfo s = sleeper();
        Answer ok = post(s.id(), "{\"conversation_id\": \"4f6c2a9e-1b7d-4c3e-9a8f-2d5b6e7f8a9b\"}");
        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.body().path("activity").asText()).isEqualTo("unknown");
        Answer bad = post(s.id(), "{\"activity\": \"working\", \"conversation_id\": \"--rm -rf\"}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body().path("code").asText()).isEqualTo("invalid_conversation_id");
        assertThat(listed(s.id()).activity()).as("nothing changed").isEqualTo(Activity.UNKNOWN);
        Answer empty = post(s.id(), "{}");
        assertThat(empty.status()).isEqualTo(400);
        assertThat(empty.body().path("code").asText()).isEqualTo("bad_request");
        Answer both = post(s.id(), "{\"activity\": \"waiting_input\", \"conversation_id\": \"abc-1\"}");
        assertThat(both.body().path("activity").asText()).isEqualTo("waiting_input");
    }

    @Test
    void aReportForAnUnknownSessionIsNotFound() throws Exception {
        Answer a = report("nosuchsession", "working");
        assertThat(a.status()).isEqualTo(404);
        assertThat(a.body().path("code").asText()).isEqualTo("session_not_found");
        assertThat(report("../etc", "working").status()).isIn(400, 404);
    }

    @Test
    void aSessionWhoseProgramEndedIsIdleAndTakesNoReports() throws Exception {
        SessionInfo s = d.spawn(c, List.of("sh", "-c", "read x"));
        report(s.id(), "waiting_input");
        c.send(new ClientMessage.PtyInput(null, s.id(), "\r"));
        c.await(ServerMessage.SessionState.class, e -> e.sessionId().equals(s.id()) && e.activity() == Activity.IDLE);
        assertThat(listed(s.id()).activity()).isEqualTo(Activity.IDLE);
        Answer a = report(s.id(), "working");
        assertThat(a.status()).isEqualTo(409);
        assertThat(a.body().path("code").asText()).isEqualTo("session_not_running");
        assertThat(listed(s.id()).activity()).isEqualTo(Activity.IDLE);
    }
}
