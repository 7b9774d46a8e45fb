package dev.limpet.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * JSON encoding of the client protocol. Field names are snake_case on the wire; unknown fields are
 * ignored (additive evolution). Decoding errors become {@link ProtocolException}s with the code a
 * client receives.
 */
public final class ProtocolCodec {
    /** Protocol version spoken by this build. */
    public static final int PROTOCOL = 1;
    /** Largest text or binary frame accepted, in bytes. */
    public static final int MAX_FRAME_BYTES = 1 << 20;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .serializationInclusion(JsonInclude.Include.ALWAYS)
            .build();

    private ProtocolCodec() {}

    /** The shared mapper configured for the wire format (snake_case, lenient on unknown fields). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static String encode(ServerMessage message) {
        return write(message);
    }

    public static String encode(ClientMessage message) {
        return write(message);
    }

    public static ClientMessage decodeClient(String json) {
        return read(json, ClientMessage.class);
    }

    public static ServerMessage decodeServer(String json) {
        return read(json, ServerMessage.class);
    }

    /** Writes any wire value (records, lists, maps) as JSON. */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + value.getClass().getSimpleName(), e);
        }
    }

    /**
     * Reads a control message that is a JSON object into a map (relay control text, NATS requests):
     * anything else, {@code null} and a value followed by more text included, is refused with
     * {@code bad_request}, so callers never see a null map.
     */
    public static Map<?, ?> readObject(byte[] json) {
        try {
            JsonNode tree = MAPPER.readTree(json);
            if (tree == null || !tree.isObject()) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, "a control message must be a JSON object");
            }
            return MAPPER.treeToValue(tree, Map.class);
        } catch (IOException e) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "malformed JSON: " + clip(e.getMessage()));
        }
    }

    public static Map<?, ?> readObject(String json) {
        return readObject(json.getBytes(StandardCharsets.UTF_8));
    }

    /** Reads a JSON value of the given type, mapping failures to {@code bad_request}/{@code unknown_type}. */
    public static <T> T read(String json, Class<T> type) {
        if (json == null || json.isBlank()) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "empty message");
        }
        try {
            JsonNode tree = MAPPER.readTree(json);
            if (tree == null || !tree.isObject()) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, "a message must be a JSON object");
            }
            return MAPPER.treeToValue(tree, type);
        } catch (InvalidTypeIdException e) {
            String id = e.getTypeId();
            if (id == null) {
                throw new ProtocolException(ErrorCode.BAD_REQUEST, "message has no \"type\"");
            }
            throw new ProtocolException(ErrorCode.UNKNOWN_TYPE, "unknown message type '" + clip(id) + "'");
        } catch (ValueInstantiationException e) {
            if (e.getCause() instanceof ProtocolException pe) {
                throw pe;
            }
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "invalid message: " + clip(e.getOriginalMessage()));
        } catch (JsonProcessingException e) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "malformed JSON: " + clip(e.getOriginalMessage()));
        }
    }

    /** A client- or peer-supplied string cut to 200 characters, for error messages and logs. */
    public static String clip(String s) {
        if (s == null) {
            return "";
        }
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
