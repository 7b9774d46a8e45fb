package dev.limpet.terminal.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * Reads the tail of a session's journal (the rotated file, then the current one). A journal that
 * does not parse to its end (a record cut short, a bad header or checksum) gives no history at
 * all and a warning saying why: showing part of a damaged history as if it were whole would mislead.
 */
public final class JournalReader {
    /** The history shown above a revived session (at most), and whether it is all there. */
    public record Tail(byte[] data, String warning) {
        public static final Tail EMPTY = new Tail(new byte[0], null);
    }

    private JournalReader() {}

    /** The last {@code maxBytes} of the journal, starting at a line; empty when there is none. */
    public static Tail tail(Path file, int maxBytes) {
        byte[] none = new byte[0];
        try {
            Ring ring = new Ring(maxBytes);
            boolean any = readInto(JournalFormat.previous(file), ring) | readInto(file, ring);
            if (!any) {
                return Tail.EMPTY;
            }
            return new Tail(ring.fromLineStart(), null);
        } catch (Damaged e) {
            return new Tail(none, "the journal " + file.getFileName() + " is damaged (" + e.getMessage()
                    + "); the session was revived without its history");
        } catch (IOException e) {
            return new Tail(none, "the journal " + file.getFileName() + " cannot be read (" + e
                    + "); the session was revived without its history");
        }
    }

    private static boolean readInto(Path file, Ring ring) throws IOException {
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new Damaged(file.getFileName() + " is not a regular file");
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long size = ch.size();
            long pos = 0;
            ByteBuffer header = ByteBuffer.allocate(JournalFormat.HEADER_BYTES);
            while (pos < size) {
                if (size - pos < JournalFormat.HEADER_BYTES) {
                    throw new Damaged("truncated: a record header at byte " + pos + " is cut short");
                }
                header.clear();
                readFully(ch, header, pos);
                header.flip();
                if (header.get() != JournalFormat.MAGIC_0 || header.get() != JournalFormat.MAGIC_1 || header.get() != JournalFormat.VERSION) {
                    throw new Damaged("corrupt: no record starts at byte " + pos);
                }
                header.get();
                int len = header.getInt();
                int crc = header.getInt();
                if (len < 0 || len > JournalFormat.MAX_RECORD_PAYLOAD) {
                    throw new Damaged("corrupt: a record at byte " + pos + " claims " + len + " bytes");
                }
                if (pos + JournalFormat.HEADER_BYTES + len > size) {
                    throw new Damaged("truncated: the record at byte " + pos + " is cut short");
                }
                ByteBuffer payload = ByteBuffer.allocate(len);
                readFully(ch, payload, pos + JournalFormat.HEADER_BYTES);
                CRC32 check = new CRC32();
                check.update(payload.array());
                if ((int) check.getValue() != crc) {
                    throw new Damaged("corrupt: the checksum of the record at byte " + pos + " does not match");
                }
                ring.add(payload.array());
                pos += JournalFormat.HEADER_BYTES + len;
            }
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer b, long at) throws IOException {
        while (b.hasRemaining()) {
            int n = ch.read(b, at + b.position());
            if (n < 0) {
                throw new Damaged("truncated at byte " + (at + b.position()));
            }
        }
    }

    private static final class Damaged extends IOException {
        Damaged(String message) {
            super(message);
        }
    }

    /** The last {@code capacity} bytes added. */
    private static final class Ring {
        private final byte[] buf;
        private long total;

        Ring(int capacity) {
            buf = new byte[Math.max(0, capacity)];
        }

        void add(byte[] data) {
            if (buf.length == 0) {
                return;
            }
            int skip = Math.max(0, data.length - buf.length);
            for (int i = skip; i < data.length; i++) {
                buf[(int) ((total + i) % buf.length)] = data[i];
            }
            total += data.length;
        }

        /** The bytes held, from after the first line break when the start was cut off. */
        byte[] fromLineStart() {
            int n = (int) Math.min(total, buf.length);
            byte[] out = new byte[n];
            long start = total - n;
            for (int i = 0; i < n; i++) {
                out[i] = buf[(int) ((start + i) % buf.length)];
            }
            if (total > buf.length) {
                for (int i = 0; i < out.length; i++) {
                    if (out[i] == '\n') {
                        return Arrays.copyOfRange(out, i + 1, out.length);
                    }
                }
            }
            return out;
        }
    }
}
