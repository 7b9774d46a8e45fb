package dev.limpet.daemon.backend.tmux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StreamTailTest {
    static final String NAME = "limpet--0123456789abcdef";
    @TempDir
    Path dir;

    static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void whatWasAppendedIsThereForTheNextDaemonAtTheSameOffsets() throws Exception {
        Path streams = dir.resolve("streams");
        try (StreamTail t = StreamTail.create(streams, NAME, 64, new StreamTail.Held(0, new byte[0]))) {
            t.append(5, bytes("hello"));
            t.append(11, bytes(" world"));
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(StreamTail.fileFor(streams, NAME)))).isEqualTo("rw-------");
        StreamTail.Opened o = StreamTail.reopen(streams, NAME, 64);
        assertThat(o.held().start()).isZero();
        assertThat(new String(o.held().bytes(), StandardCharsets.US_ASCII)).isEqualTo("hello world");
        o.tail().append(12, bytes("!"));
        o.tail().close();
        StreamTail.Opened again = StreamTail.reopen(streams, NAME, 4);
        assertThat(again.held().start()).isEqualTo(8);
        assertThat(new String(again.held().bytes(), StandardCharsets.US_ASCII)).isEqualTo("rld!");
        again.tail().close();
    }

    @Test
    void aTailTwiceTheRingIsCompactedToTheLastRingOfBytes() throws Exception {
        Path streams = dir.resolve("streams");
        try (StreamTail t = StreamTail.create(streams, NAME, 4, new StreamTail.Held(0, new byte[0]))) {
            t.append(5, bytes("abcde"));
            t.append(9, bytes("fghi"));
        }
        assertThat(Files.size(StreamTail.fileFor(streams, NAME))).isEqualTo(8 + 4);
        StreamTail.Opened o = StreamTail.reopen(streams, NAME, 4);
        assertThat(o.held().start()).isEqualTo(5);
        assertThat(new String(o.held().bytes(), StandardCharsets.US_ASCII)).isEqualTo("fghi");
        o.tail().close();
    }

    @Test
    void aChunkThatDoesNotFollowTheEndIsRefused() throws Exception {
        try (StreamTail t = StreamTail.create(dir.resolve("streams"), NAME, 64, new StreamTail.Held(0, new byte[0]))) {
            t.append(3, bytes("abc"));
            assertThatThrownBy(() -> t.append(10, bytes("xyz"))).isInstanceOf(IOException.class).hasMessageContaining("ends at 3");
        }
    }

    @Test
    void aMissingOrBrokenTailStartsAfresh() throws Exception {
        Path streams = dir.resolve("streams");
        StreamTail.Opened fresh = StreamTail.reopen(streams, NAME, 64);
        assertThat(fresh.held().start()).isZero();
        assertThat(fresh.held().bytes()).isEmpty();
        fresh.tail().close();
        Files.write(StreamTail.fileFor(streams, NAME), new byte[] {1, 2, 3});
        StreamTail.Opened broken = StreamTail.reopen(streams, NAME, 64);
        assertThat(broken.held().bytes()).isEmpty();
        broken.tail().close();
    }
}
