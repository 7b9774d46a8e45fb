package dev.limpet.daemon.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.protocol.ProtocolException;
import io.javalin.json.JsonMapper;
import java.lang.reflect.Type;

/** Javalin's JSON goes through the protocol's mapper, so REST and WebSocket agree on field names. */
final class WireJson implements JsonMapper {
    @Override
    public String toJsonString(Object obj, Type type) {
        return ProtocolCodec.write(obj);
    }

    @Override
    public <T> T fromJsonString(String json, Type type) {
        T value;
        try {
            value = ProtocolCodec.mapper().readValue(json, ProtocolCodec.mapper().constructType(type));
        } catch (JsonProcessingException e) {
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "malformed JSON: " + ProtocolCodec.clip(e.getOriginalMessage()));
        }
        if (value == null) {
            // JSON null reads as no value at all: refused here, before a handler trips over it.
            throw new ProtocolException(ErrorCode.BAD_REQUEST, "the request body must be a JSON object, not null");
        }
        return value;
    }
}
