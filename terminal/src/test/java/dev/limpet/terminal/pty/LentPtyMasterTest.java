package dev.limpet.terminal.pty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.limpet.terminal.os.DescriptorPassing;
import dev.limpet.testkit.EchoLines;
import dev.limpet.testkit.TestPrograms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real PTY's master lent over a real socket, as a worker lends it to the daemon. */
class LentPtyMasterTest {
    static final long SELF = ProcessHandle.current().pid();
    @TempDir
    Path tmp;

    LentPtyMaster borrow(PtyProcess pty, long lender) throws IOException {
        Path socket = tmp.resolve("m.sock");
        int listener = DescriptorPassing.listen(socket);
        try {
            pty.lendMasterTo(socket);
            return LentPtyMaster.receive(listener, lender, 10_000, 4096);
        } finally {
            DescriptorPassing.closeListener(listener, socket);
        }
    }

    @Test
    void keysWrittenToTheLentMasterReachTheProgramAndItsOutputStillComesToTheLender() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(TestPrograms.command(EchoLines.class))) {
            PtyTranscript out = PtyTranscript.of(pty);
            out.await("ready\r\n");
            try (LentPtyMaster master = borrow(pty, SELF)) {
                byte[] keys = "past the lender\n".getBytes(StandardCharsets.UTF_8);
                assertThat(master.write(keys, 0, keys.length)).isEqualTo(keys.length);
                out.await("got: past the lender\r\n");
            }
            out.type("after it was given back\n");
            out.await("got: after it was given back\r\n");
        }
    }

    @Test
    void aTerminalThatTakesNoMoreTakesWhatFitsAndTheWriteNeverWaits() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(List.of("/bin/sleep", "60"));
                LentPtyMaster master = borrow(pty, SELF)) {
            PtyTranscript.of(pty); // drains the echo, so only the input side can fill
            byte[] block = new byte[4096];
            Arrays.fill(block, (byte) 'x');
            long taken = 0;
            int n;
            while ((n = master.write(block, 0, block.length)) > 0) {
                taken += n;
                assertThat(taken).as("a terminal's input holds far less than this").isLessThan(16L << 20);
            }
            assertThat(n).isZero();
            assertThat(taken).isPositive();
        }
    }

    @Test
    void aMasterFromAnyOtherProcessThanTheLenderIsRefusedAndAClosedOneWritesNothing() throws Exception {
        try (PtyProcess pty = PtyIoTest.spawn(TestPrograms.command(EchoLines.class))) {
            assertThatThrownBy(() -> borrow(pty, 1)).isInstanceOf(IOException.class).hasMessageContaining("not from pid 1");
            LentPtyMaster master = borrow(pty, SELF);
            master.close();
            master.close();
            assertThatThrownBy(() -> master.write(new byte[] {'x'}, 0, 1)).isInstanceOf(IOException.class).hasMessageContaining("closed");
        }
    }
}
