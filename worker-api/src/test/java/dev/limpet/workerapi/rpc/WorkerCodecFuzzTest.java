package dev.limpet.workerapi.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.workerapi.rpc.WorkerPayloads.AttachParams;
import dev.limpet.workerapi.rpc.WorkerPayloads.CaptureResult;
import dev.limpet.workerapi.rpc.WorkerPayloads.DetachParams;
import dev.limpet.workerapi.rpc.WorkerPayloads.Empty;
import dev.limpet.workerapi.rpc.WorkerPayloads.ExitEvent;
import dev.limpet.workerapi.rpc.WorkerPayloads.HealthResult;
import dev.limpet.workerapi.rpc.WorkerPayloads.Hello;
import dev.limpet.workerapi.rpc.WorkerPayloads.HelloResult;
import dev.limpet.workerapi.rpc.WorkerPayloads.Info;
import dev.limpet.workerapi.rpc.WorkerPayloads.LendMasterParams;
import dev.limpet.workerapi.rpc.WorkerPayloads.ReplayParams;
import dev.limpet.workerapi.rpc.WorkerPayloads.ReplayResult;
import dev.limpet.workerapi.rpc.WorkerPayloads.ResizeParams;
import dev.limpet.workerapi.rpc.WorkerPayloads.SignalParams;
import dev.limpet.workerapi.rpc.WorkerPayloads.StateEvent;
import dev.limpet.workerapi.rpc.WorkerPayloads.StreamAttachResult;
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
            LendMasterParams.class, ResizeParams.class, SignalParams.class, CaptureResult.class, HealthResult.class, Empty.class,
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
