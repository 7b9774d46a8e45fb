package dev.limpet.daemon.files;

import dev.limpet.protocol.ProtocolCodec;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.IOException;
import java.nio.file.Files;

/**
 * {@code <data_root>/daemon.json}: how client verbs find a running daemon. Written atomically once
 * the daemon listens; removed on a clean exit (a stale one after {@code kill -9} is harmless: the
 * client finds nothing listening and says so).
 */
public final class DaemonInfoFile {
    /** {@code relay}: the relay URL of {@code --relay}, null without one; {@code limpet pair} builds its link from it. */
    public record Info(long pid, String url, int port, String daemonInstanceId, String version, String backend, String relay) {}

    private DaemonInfoFile() {}

    public static void write(DataRoot root, Info info) throws IOException {
        PrivateFiles.writeAtomically(root.daemonInfo(), ProtocolCodec.write(info) + "\n");
    }

    public static void remove(DataRoot root) throws IOException {
        Files.deleteIfExists(root.daemonInfo());
    }
}
