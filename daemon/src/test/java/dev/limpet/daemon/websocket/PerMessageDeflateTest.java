package dev.limpet.daemon.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.zip.Inflater;
import org.junit.jupiter.api.Test;

class PerMessageDeflateTest {
    private static Optional<String> answer(String... offers) {
        return PerMessageDeflate.negotiate(List.of(offers)).map(PerMessageDeflate.Terms::responseHeader);
    }

    @Test
    void whatBrowsersOfferIsAccepted() {
        assertThat(answer("permessage-deflate; client_max_window_bits")).contains("permessage-deflate");
        assertThat(answer("permessage-deflate; client_max_window_bits=12; server_max_window_bits=15")).contains("permessage-deflate");
        assertThat(answer("x-webkit-deflate-frame", "permessage-deflate")).contains("permessage-deflate");
    }

    @Test
    void anOfferThisServerCannotHonourIsDeclinedAndTheNextOneTried() {
        assertThat(answer("permessage-deflate; server_max_window_bits=10")).isEmpty();
        assertThat(answer("permessage-deflate; server_max_window_bits=10, permessage-deflate")).contains("permessage-deflate");
        assertThat(answer("permessage-deflate; mystery")).isEmpty();
        assertThat(answer("permessage-deflate; client_no_context_takeover; client_no_context_takeover")).as("a parameter twice").isEmpty();
        assertThat(answer("permessage-deflate; client_max_window_bits=7")).isEmpty();
        assertThat(answer("x-webkit-deflate-frame")).isEmpty();
    }

    @Test
    void aClientThatAsksTheServerToForgetBetweenMessagesIsAnswered() {
        assertThat(answer("permessage-deflate; server_no_context_takeover")).contains("permessage-deflate; server_no_context_takeover");
    }

    private static String inflate(Inflater browser, ByteBuffer compressed) throws Exception {
        byte[] in = new byte[compressed.remaining() + 4];
        compressed.get(in, 0, in.length - 4);
        in[in.length - 2] = (byte) 0xFF;
        in[in.length - 1] = (byte) 0xFF;
        browser.setInput(in);
        byte[] out = new byte[1 << 16];
        int n = browser.inflate(out);
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }

    @Test
    void compressedMessagesInflateInABrowsersInflaterOneAfterAnother() throws Exception {
        PerMessageDeflate server = new PerMessageDeflate(PerMessageDeflate.negotiate(List.of("permessage-deflate")).orElseThrow());
        Inflater browser = new Inflater(true);
        String line = "0001 a line of a flood, numbered, eighty columns wide as the bench writes them..\r\n";
        ByteBuffer first = server.compress(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
        assertThat(inflate(browser, first)).isEqualTo(line);
        ByteBuffer second = server.compress(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
        assertThat(second.remaining()).as("the window is kept across messages").isLessThan(line.length() / 4);
        assertThat(inflate(browser, second)).isEqualTo(line);
    }

    @Test
    void withoutContextTakeoverEachMessageInflatesOnItsOwn() throws Exception {
        PerMessageDeflate server = new PerMessageDeflate(
                PerMessageDeflate.negotiate(List.of("permessage-deflate; server_no_context_takeover")).orElseThrow());
        String line = "the same text twice ".repeat(5);
        server.compress(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
        ByteBuffer second = server.compress(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
        assertThat(inflate(new Inflater(true), second)).isEqualTo(line);
    }

    @Test
    void compressingLeavesTheCallersBufferAsItWas() {
        PerMessageDeflate server = new PerMessageDeflate(PerMessageDeflate.negotiate(List.of("permessage-deflate")).orElseThrow());
        ByteBuffer payload = ByteBuffer.wrap("x".repeat(300).getBytes(StandardCharsets.UTF_8));
        server.compress(payload);
        assertThat(payload.remaining()).isEqualTo(300);
        byte[] big = new byte[200_000];
        Arrays.fill(big, (byte) 'a');
        assertThat(server.compress(ByteBuffer.wrap(big)).remaining()).isPositive();
    }
}
