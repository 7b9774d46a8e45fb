package dev.limpet.protocol.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.protocol.worker.WorkerPayloads.AttachParams;
import dev.limpet.protocol.worker.WorkerPayloads.CaptureResult;
import dev.limpet.protocol.worker.WorkerPayloads.DetachParams;
import dev.limpet.protocol.worker.WorkerPayloads.Empty;
import dev.limpet.protocol.worker.WorkerPayloads.ExitEvent;
import dev.limpet.protocol.worker.WorkerPayloads.HealthResult;
import dev.limpet.protocol.worker.WorkerPayloads.Hello;
import dev.limpet.protocol.worker.WorkerPayloads.HelloResult;
import dev.limpet.protocol.worker.WorkerPayloads.Info;
import dev.limpet.protocol.worker.WorkerPayloads.InputParams;
import dev.limpet.protocol.worker.WorkerPayloads.ReplayParams;
import dev.limpet.protocol.worker.WorkerPayloads.ReplayResult;
import dev.limpet.protocol.worker.WorkerPayloads.ResizeParams;
import dev.limpet.protocol.worker.WorkerPayloads.SignalParams;
import dev.limpet.protocol.worker.WorkerPayloads.StateEvent;
import dev.limpet.protocol.worker.WorkerPayloads.StreamAttachResult;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Coverage-guided fuzzing (Jazzer) of the worker RPC codec, on both sides of the worker socket: any
 * line either decodes to an envelope that re-encodes to an equal one, or is refused with a
 * {@link WorkerRpcException}; and the envelope's payload read as every payload type gives a record
 * that survives a round trip, or a {@link WorkerRpcException}. Nothing else escapes.
 */
class WorkerCodecFuzzTest {
    static final List<Class<?>> PAYLOADS = List.of(Hello.class, HelloResult.class, Info.class, AttachParams.class,
            StreamAttachResult.class, ReplayParams.class, ReplayResult.class, DetachParams.class,
            InputParams.class, ResizeParams.class, SignalParams.class, CaptureResult.class, HealthResult.class, Empty.class,
            ExitEvent.class, StateEvent.class, WorkerLaunch.class);

    @FuzzTest
    void decodesEnvelopesAndPayloadsThatSurviveReEncodingOrRefuses(byte[] input) {
        String line = new String(input, StandardCharsets.UTF_8);
        WorkerEnvelope envelope;
        try {
            envelope = WorkerCodec.decode(line);
        } catch (WorkerRpcException refused) {
            assertThat(refused.code()).isEqualTo(WorkerErrorCode.BAD_REQUEST);
            return;
        }
        assertThat(envelope).isNotNull();
        assertThat(WorkerCodec.decode(WorkerCodec.encode(envelope))).isEqualTo(envelope);
        JsonNode payload = switch (envelope) {
            case WorkerEnvelope.Request r -> r.params();
            case WorkerEnvelope.Response r -> r.result();
            case WorkerEnvelope.Event e -> e.body();
        };
        for (Class<?> type : PAYLOADS) {
            Object read;
            try {
                read = WorkerCodec.read(payload, type);
            } catch (WorkerRpcException refused) {
                continue;
            }
            assertThat(read).isInstanceOf(type);
            assertThat(WorkerCodec.read(WorkerCodec.tree(read), type)).isEqualTo(read);
        }
    }
}
