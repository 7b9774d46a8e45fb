package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.protocol.ProtocolCodec;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTreeTest {
    @Test
    void whatItReadsItWritesBackAsTheProtocolsCodecReadsIt() throws Exception {
        String text = "{\"id\":\"k3x9\",\"label\":\"bu\\\"ild\\u001b\",\"command\":[\"sh\",\"-c\",\"x\"],\"pid\":4294967296,"
                + "\"exit_code\":null,\"ratio\":0.5,\"ok\":true,\"nested\":{\"a\":[]}}";
        JsonTree t = JsonTree.parse(text);
        assertThat(ProtocolCodec.mapper().readTree(JsonTree.write(t))).isEqualTo(ProtocolCodec.mapper().readTree(text));
        assertThat(JsonTree.write(t)).startsWith("{\"id\":\"k3x9\",\"label\""); // field order kept
    }

    @Test
    void lookupsNeverThrowAndSayWhatIsMissingOrNull() throws Exception {
        JsonTree t = JsonTree.parse("{\"a\":{\"b\":[1,2]},\"n\":null,\"s\":\"x\",\"big\":9007199254740993}");
        assertThat(t.path("a").path("b")).extracting(JsonTree::asLong).containsExactly(1L, 2L);
        assertThat(t.path("zz").path("yy").isMissing()).isTrue();
        assertThat(t.path("zz").text()).isEqualTo("-");
        assertThat(t.path("n").isNull()).isTrue();
        assertThat(t.path("n").text("fallback")).isEqualTo("fallback");
        assertThat(t.path("s").path("x").isMissing()).isTrue();
        assertThat(t.path("big").asLong()).isEqualTo(9007199254740993L);
        assertThat(t.path("a").text()).isEqualTo("{\"b\":[1,2]}");
        assertThat(JsonTree.write(Map.of("list", List.of(1, "two", false)))).isEqualTo("{\"list\":[1,\"two\",false]}");
    }

    @Test
    void textThatIsNotOneJsonValueIsRefused() {
        for (String bad : List.of("", "{", "{} {}", "[1,]", "nul")) {
            assertThatThrownBy(() -> JsonTree.parse(bad)).as(bad).isInstanceOf(IOException.class);
        }
    }
}
