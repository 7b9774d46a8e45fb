package dev.limpet.daemon.backend.worker;

import dev.limpet.daemon.startup.StartupCaches;
import dev.limpet.protocol.LimpetVersion;
import dev.limpet.terminal.os.PathTrust;
import dev.limpet.terminal.os.PrivateFiles;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.CodeSource;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The class path workers run from. From an installed jar, workers run from a private copy under
 * {@code <data_root>/runtime/<version>-<digest prefix>/limpet.jar}, made once (tmp + atomic
 * move): replacing or deleting the installed jar never breaks a live worker, and two builds with
 * the same version number never share a copy; the workers' class-data archive, once trained beside
 * the installed jar, is linked beside it. From a development class path (tests, IDE), that class
 * path is used as is.
 *
 * <p>The digest is of the jar's table of contents (each entry's name, CRC-32 and sizes), not of its
 * bytes: it tells two builds apart as well, and reads a few hundred kilobytes where hashing all
 * ~35 MB cost half a second of CPU at every daemon start.
 */
public final class RuntimeJar {
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeJar.class);

    /** The name of the workers' copy, which the workers' class-data archive is trained under too. */
    public static final String JAR_NAME = "limpet.jar";

    private RuntimeJar() {}

    /** The class path to run limpet's classes from (workers, agents' hooks); makes the private copy when needed. */
    public static String classPath(Path runtimeDir) throws IOException {
        Path source = codeSource();
        String classPath = System.getProperty("java.class.path");
        // Only the runnable jar (java -jar limpet.jar: the whole class path is that one file) holds
        // everything a worker needs; a module jar on a longer class path (tests) does not.
        if (source == null || !Files.isRegularFile(source) || !source.toString().endsWith(".jar")
                || !sameFile(source, classPath)) {
            return classPath;
        }
        String version = LimpetVersion.get() + "-" + digestOf(source).substring(0, 12);
        Path dir = runtimeDir.resolve(version);
        Path target = dir.resolve(JAR_NAME);
        if (!Files.isRegularFile(target)) {
            PrivateFiles.directory(runtimeDir);
            PrivateFiles.directory(dir);
            copy(source, target);
            LOG.info("workers run from {}", target);
        }
        // The workers' class-data archive comes along once trained for this jar (newer than it): a
        // training may end after the first daemon made the copy, so a later start brings it. A hard
        // link where it can (a retraining replaces the file beside the jar, never this inode).
        Path cache = source.resolveSibling(StartupCaches.WORKER_CACHE);
        Path cacheCopy = dir.resolve(StartupCaches.WORKER_CACHE);
        if (!Files.exists(cacheCopy) && StartupCaches.freshBeside(cache, source) && trusted(cache, PathTrust.forThisProcess().uid())) {
            try {
                Files.createLink(cacheCopy, cache);
            } catch (IOException | UnsupportedOperationException e) {
                copy(cache, cacheCopy); // another file system
            }
            LOG.info("workers start from the class-data archive {}", cacheCopy);
        }
        return target.toString();
    }

    /**
     * Whether the archive may be handed to workers: the JVM runs what it holds as limpet's classes,
     * so it must be a regular file (not a link) of this user or root that nobody else may write, as
     * the jar beside it is. One that is not is left out, said in the log.
     */
    static boolean trusted(Path cache, int uid) {
        try {
            Map<String, Object> a = Files.readAttributes(cache, "unix:uid,mode,isRegularFile", LinkOption.NOFOLLOW_LINKS);
            int owner = (Integer) a.get("uid");
            int mode = (Integer) a.get("mode");
            if (Boolean.TRUE.equals(a.get("isRegularFile")) && (owner == uid || owner == 0) && (mode & 0022) == 0) {
                return true;
            }
            leftOut(cache, "it is not a regular file of this user that only they may write (owner uid " + owner + ", mode "
                    + Integer.toOctalString(mode & 07777) + "); run `limpet train-caches` as this user");
        } catch (IOException | UnsupportedOperationException e) {
            leftOut(cache, e.toString());
        }
        return false;
    }

    /** The archive and reason last said: a worker starts per session (or host), so each is said once, not at every start. */
    private static volatile String lastLeftOut;

    private static void leftOut(Path cache, String why) {
        String said = cache + ": " + why;
        if (!said.equals(lastLeftOut)) {
            lastLeftOut = said;
            LOG.warn("workers start without the class-data archive {}", said);
        }
    }

    /**
     * The workers' class-data archive beside {@code classPath} (a runtime copy, or a jar run as it is)
     * when it was trained for that jar and only this user may write it; null otherwise (a development
     * class path, an archive not trained yet: {@code limpet status} says so). An archive older than
     * the jar is left out with a warning: the JVM would ignore it, said only in each worker's log, and
     * every worker would load its classes from the jar again.
     */
    static Path workerCache(String classPath) {
        if (!classPath.endsWith(".jar") || classPath.contains(File.pathSeparator)) {
            return null;
        }
        Path jar = Path.of(classPath);
        Path cache = jar.resolveSibling(StartupCaches.WORKER_CACHE);
        if (!Files.isRegularFile(cache, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        if (!StartupCaches.freshBeside(cache, jar)) {
            leftOut(cache, "it is older than " + jar + ", so it was trained for another build (`limpet train-caches` trains it again)");
            return null;
        }
        return trusted(cache, PathTrust.forThisProcess().uid()) ? cache : null;
    }

    /**
     * Copies through a temporary file and an atomic move (a worker never sees half a file), keeping
     * the modification time: the JVM takes a class-data archive only for a jar of the name, size and
     * time it was trained with.
     */
    private static void copy(Path from, Path to) throws IOException {
        Path tmp = Files.createTempFile(to.getParent(), "." + to.getFileName() + ".", ".tmp");
        try {
            Files.copy(from, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.setLastModifiedTime(tmp, Files.getLastModifiedTime(from));
            Files.move(tmp, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static boolean sameFile(Path source, String classPath) {
        if (classPath == null || classPath.isBlank() || classPath.contains(File.pathSeparator)) {
            return false;
        }
        try {
            return Files.isSameFile(source, Path.of(classPath));
        } catch (IOException | InvalidPathException e) {
            return false;
        }
    }

    private static Path codeSource() {
        CodeSource cs = RuntimeJar.class.getProtectionDomain().getCodeSource();
        if (cs == null || cs.getLocation() == null) {
            return null;
        }
        try {
            return Path.of(cs.getLocation().toURI());
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    /** The jar's digest, computed once per process while the file keeps its size and modification time. */
    private static String digestOf(Path file) throws IOException {
        String stamp = file.toAbsolutePath() + "|" + Files.size(file) + "|" + Files.getLastModifiedTime(file).toMillis();
        String[] known = lastDigest;
        if (known != null && known[0].equals(stamp)) {
            return known[1];
        }
        String digest = tableOfContentsDigest(file);
        lastDigest = new String[] {stamp, digest};
        return digest;
    }

    private static volatile String[] lastDigest;

    static String tableOfContentsDigest(Path file) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
        ByteBuffer sums = ByteBuffer.allocate(3 * Long.BYTES);
        try (ZipFile jar = new ZipFile(file.toFile())) {
            for (ZipEntry entry : Collections.list(jar.entries())) {
                digest.update(entry.getName().getBytes(StandardCharsets.UTF_8));
                sums.clear().putLong(entry.getCrc()).putLong(entry.getSize()).putLong(entry.getCompressedSize());
                digest.update(sums.array());
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
