package dev.limpet.terminal.journal;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32;

/**
 * A session journal on disk: records of {@code magic "LJ", version 1, flags 0, length (int),
 * CRC-32 of the payload (int), payload}. Framing lets a reader tell a whole journal from one a
 * crash cut short or something overwrote. The journal of session {@code S} is {@code S.log}; when
 * it reaches half the cap it becomes {@code S.log.1} (replacing the older one) and a new
 * {@code S.log} starts, so the two together never hold more than the cap.
 */
public final class JournalFormat {
    static final byte MAGIC_0 = 'L';
    static final byte MAGIC_1 = 'J';
    static final byte VERSION = 1;
    static final int HEADER_BYTES = 12;
    /** The largest payload one record holds (a batch larger than this is written as several). */
    static final int MAX_RECORD_PAYLOAD = 1 << 20;
    /** The default cap of one session's journal (both files together). */
    public static final long DEFAULT_LIMIT_BYTES = 8L << 20;
    /** The smallest cap accepted: below it a journal would rotate on every batch. */
    public static final long MIN_LIMIT_BYTES = 64L << 10;

    private JournalFormat() {}

    /** {@code <dir>/<sessionId>.log}. */
    public static Path file(Path dir, String sessionId) {
        return dir.resolve(sessionId + ".log");
    }

    /** The rotated predecessor of {@code file}. */
    public static Path previous(Path file) {
        return file.resolveSibling(file.getFileName() + ".1");
    }

    /** The header of a record whose payload is {@code data[off, off+len)}; the payload follows it as it is. */
    static ByteBuffer header(byte[] data, int off, int len) {
        CRC32 crc = new CRC32();
        crc.update(data, off, len);
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES);
        b.put(MAGIC_0).put(MAGIC_1).put(VERSION).put((byte) 0).putInt(len).putInt((int) crc.getValue());
        return b.flip();
    }
}
