package dev.limpet.terminal.os;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Descriptors handed over real Unix sockets. */
class DescriptorPassingTest {
    @TempDir
    Path tmp;

    @Test
    void aSentDescriptorArrivesAsTheSameOpenFileCloseOnExecAndSaysWhoSentIt() throws Exception {
        Path socket = tmp.resolve("d.sock");
        int listener = DescriptorPassing.listen(socket);
        int counter = Libc.eventfd(0, 0);
        try {
            DescriptorPassing.send(socket, counter);
            DescriptorPassing.Received r = DescriptorPassing.receive(listener, 10_000);
            try (Arena arena = Arena.ofConfined()) {
                assertThat(r.fd()).isNotEqualTo(counter);
                assertThat(r.from().pid()).isEqualTo(ProcessHandle.current().pid());
                assertThat(r.from().uid()).isEqualTo(Libc.getuid());
                assertThat(Libc.fcntl(r.fd(), Libc.F_GETFD, 0) & Libc.FD_CLOEXEC).isEqualTo(Libc.FD_CLOEXEC);
                assertThat(Libc.write(r.fd(), arena.allocateFrom(JAVA_LONG, 5L), 8)).isEqualTo(8);
                MemorySegment got = arena.allocate(JAVA_LONG);
                assertThat(Libc.read(counter, got, 8)).isEqualTo(8);
                assertThat(got.get(JAVA_LONG, 0)).as("written through the received descriptor, read through the sent one").isEqualTo(5L);
            } finally {
                Libc.close(r.fd());
            }
        } finally {
            Libc.close(counter);
            DescriptorPassing.closeListener(listener, socket);
        }
        assertThat(socket).doesNotExist();
    }

    @Test
    void aReceiverGivesUpWhenNothingComesInTime() throws Exception {
        Path socket = tmp.resolve("quiet.sock");
        int listener = DescriptorPassing.listen(socket);
        try {
            assertThatThrownBy(() -> DescriptorPassing.receive(listener, 100)).isInstanceOf(IOException.class).hasMessageContaining("in time");
        } finally {
            DescriptorPassing.closeListener(listener, socket);
        }
    }

    @Test
    void sendingWhereNobodyListensOrToATooLongPathFailsWithoutWaiting() throws Exception {
        int counter = Libc.eventfd(0, 0);
        try {
            Path nobody = tmp.resolve("nobody.sock");
            Files.writeString(nobody, "not a socket");
            assertThatThrownBy(() -> DescriptorPassing.send(nobody, counter)).isInstanceOf(ErrnoException.class)
                    .hasMessageContaining("connect");
            Path tooLong = tmp.resolve("x".repeat(120) + ".sock");
            assertThatThrownBy(() -> DescriptorPassing.send(tooLong, counter)).isInstanceOf(IOException.class)
                    .hasMessageContaining("longer than 107 bytes");
            assertThatThrownBy(() -> DescriptorPassing.listen(tooLong)).isInstanceOf(IOException.class);
        } finally {
            Libc.close(counter);
        }
    }
}
