package dev.limpet.workerapi.rpc;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;

/**
 * One line of the worker RPC: a request ({@code req}), its response ({@code res}) or an event the
 * worker pushes ({@code evt}). Payloads stay JSON trees here and are read into the records of
 * {@link WorkerPayloads} by {@link WorkerCodec}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(WorkerEnvelope.Request.class),
    @JsonSubTypes.Type(WorkerEnvelope.Response.class),
    @JsonSubTypes.Type(WorkerEnvelope.Event.class),
})
public sealed interface WorkerEnvelope {

    // A payload that is absent and one that is JSON null are the same: both are NullNode, so an
    // envelope decodes equal to itself re-encoded (found by WorkerCodecFuzzTest).

    @JsonTypeName("req")
    record Request(long id, String method, JsonNode params) implements WorkerEnvelope {
        public Request {
            params = params == null ? NullNode.getInstance() : params;
        }
    }

    /** {@code ok} with a {@code result}, or not ok with an {@code error}. */
    @JsonTypeName("res")
    record Response(long id, boolean ok, JsonNode result, Error error) implements WorkerEnvelope {
        public Response {
            result = result == null ? NullNode.getInstance() : result;
        }
    }

    @JsonTypeName("evt")
    record Event(String event, JsonNode body) implements WorkerEnvelope {
        public Event {
            body = body == null ? NullNode.getInstance() : body;
        }
    }

    record Error(String code, String message) {}
}
