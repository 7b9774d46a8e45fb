package dev.limpet.client.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;

/**
 * A small private page (0600) that forwards the browser to the link. The
 * browser is started with this file's address, not with the link, because a command line can be
 * read by every user of the machine ({@code /proc/PID/cmdline}) and the link holds the token.
 * One file per daemon address, rewritten each time, and deleted once the browser has read it
 * ({@link #deleteOnceRead}): the token must not stay on disk in a page nobody needs any more.
 */
final class LauncherPage {
    private LauncherPage() {}

    static Path write(Path dir, String baseUrl, String link) throws IOException {
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path target = dir.resolve("open-" + shortHash(baseUrl) + ".html");
        Path tmp = Files.createTempFile(dir, ".open-", ".tmp", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(tmp, html(link), StandardCharsets.UTF_8);
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return target;
    }

    /**
     * Waits until the browser has read {@code page} (its access time passes its modification
     * time: what Linux's default {@code relatime} records on the first read after a write), at
     * most {@code patience}, then deletes it; with {@code noatime} that is the whole wait.
     * Returns whether the read was seen.
     */
    static boolean deleteOnceRead(Path page, Duration patience) throws IOException {
        long deadline = System.nanoTime() + patience.toNanos();
        boolean read = false;
        try {
            while (!read && System.nanoTime() < deadline) {
                var a = Files.readAttributes(page, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                read = a.lastAccessTime().compareTo(a.lastModifiedTime()) > 0;
                if (!read) {
                    Thread.sleep(50);
                }
            }
            if (read) {
                // the browser may still be parsing what it read; the file itself is no longer needed
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            Files.deleteIfExists(page);
        }
        return read;
    }

    /** Pages an earlier {@code limpet open} left behind (killed before it could delete them). */
    static void deleteLeftovers(Path dir) {
        try (var pages = Files.newDirectoryStream(dir, "open-*.html")) {
            for (Path p : pages) {
                Files.deleteIfExists(p);
            }
        } catch (IOException ignored) {
            // no config directory yet, or nothing to delete
        }
    }

    static String html(String link) {
        String attr = escape(link);
        return """
                <!doctype html>
                <html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
                <meta http-equiv="refresh" content="0;url=%s"><title>Opening limpet</title></head>
                <body><p>Opening limpet… <a href="%s">Open it</a> if nothing happens.</p>
                <script>location.replace(%s)</script></body></html>
                """.formatted(attr, attr, jsString(link));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }

    /** A JavaScript string literal that cannot end the script element. */
    private static String jsString(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private static String shortHash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
