package dev.limpet.protocol.worker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.limpet.protocol.ProtocolCodec;

/**
 * Encodes and decodes worker RPC messages (the hello's line, the JSON of CONTROL frames). Unknown fields are ignored (a newer minor may add them);
 * malformed input becomes {@link WorkerRpcException} with {@code bad_request}.
 */
public final class WorkerCodec {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .nodeFactory(FiniteNumbers.INSTANCE)
            .build();

    private WorkerCodec() {}

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** One line of JSON, without the trailing newline. */
    public static String encode(WorkerEnvelope envelope) {
        try {
            return MAPPER.writeValueAsString(envelope);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + envelope.getClass().getSimpleName(), e);
        }
    }

    public static WorkerEnvelope decode(String line) {
        if (line == null || line.isBlank()) {
            throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "empty line");
        }
        WorkerEnvelope envelope;
        try {
            envelope = MAPPER.readValue(line, WorkerEnvelope.class);
        } catch (JsonProcessingException e) {
            throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "malformed worker RPC line: " + ProtocolCodec.clip(e.getOriginalMessage()));
        }
        if (envelope == null) {
            throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "a worker RPC line must be a JSON object, not null");
        }
        return envelope;
    }

    public static WorkerEnvelope.Request request(long id, String method, Object params) {
        return new WorkerEnvelope.Request(id, method, tree(params));
    }

    public static WorkerEnvelope.Response success(long id, Object result) {
        return new WorkerEnvelope.Response(id, true, tree(result), null);
    }

    public static WorkerEnvelope.Response failure(long id, WorkerErrorCode code, String message) {
        return new WorkerEnvelope.Response(id, false, null, new WorkerEnvelope.Error(code.wire(), message));
    }

    public static WorkerEnvelope.Event event(String name, Object body) {
        return new WorkerEnvelope.Event(name, tree(body));
    }

    /** Reads a payload record out of a tree (params, result or event body). */
    public static <T> T read(JsonNode node, Class<T> type) {
        try {
            return MAPPER.treeToValue(node == null || node.isNull() ? MAPPER.createObjectNode() : node, type);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new WorkerRpcException(WorkerErrorCode.BAD_REQUEST, "invalid " + type.getSimpleName() + ": "
                    + ProtocolCodec.clip(e.getMessage()));
        }
    }

    public static JsonNode tree(Object value) {
        return value == null ? NullNode.getInstance() : MAPPER.valueToTree(value);
    }
}
