package dev.limpet.daemon.gateway;

import dev.limpet.protocol.ProtocolCodec;
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
        try {
            return ProtocolCodec.mapper().readValue(json, ProtocolCodec.mapper().constructType(type));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new dev.limpet.protocol.ProtocolException(dev.limpet.protocol.ErrorCode.BAD_REQUEST,
                    "malformed JSON: " + e.getOriginalMessage());
        }
    }
}
