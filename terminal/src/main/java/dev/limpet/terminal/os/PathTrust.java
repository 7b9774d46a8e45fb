package dev.limpet.terminal.os;

import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Set;

/**
 * Whether a path is ours alone: nobody but this process's user (and root) can replace it, read
 * what it holds or slip something in. limpet keeps its token, its database and its workers'
 * sockets under such paths, and a daemon running as root must never adopt a directory another
 * user prepared.
 *
 * <p>A private directory is refused (never repaired) when it is a symbolic link, is owned by
 * another user, or is writable by group or others (what it holds may have been planted). Every
 * directory on the way to it, symbolic links followed one by one, must be owned by this user or
 * root and must not be writable by others unless its sticky bit is set ({@code /tmp}); a link on
 * the way must be owned by this user or root too. Anything else would let another user swap a
 * directory for one of their own between our check and our use.
 */
public final class PathTrust {
    private static final int ROOT = 0;
    private static final int GROUP_OR_OTHER_WRITE = 0022;
    private static final int STICKY = 01000;
    private static final int MAX_LINKS = 40;

    private final int uid;

    /** Trust as seen by a process of user {@code uid} (tests pass another uid to play someone else). */
    public PathTrust(int uid) {
        this.uid = uid;
    }

    /** Trust as seen by this process. */
    public static PathTrust forThisProcess() {
        return new PathTrust(Posix.getuid());
    }

    public int uid() {
        return uid;
    }

    /**
     * Creates {@code dir} (0700, with any missing parents) or checks the existing one, and makes
     * it 0700.
     *
     * @throws UnsafePathException when it, or a directory on the way, could be controlled by
     *     another user
     */
    public Path privateDirectory(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        requireTrustedParents(abs);
        Map<String, Object> a = attributesOrNull(abs);
        if (a == null) {
            try {
                Files.createDirectories(abs, PosixFilePermissions.asFileAttribute(PrivateFiles.DIR_0700));
            } catch (FileAlreadyExistsException e) {
                // created meanwhile (by us, or by someone else: checked below like any existing one)
            }
            a = attributesOrNull(abs);
            if (a == null) {
                throw new NoSuchFileException(abs.toString(), null, "vanished right after it was created");
            }
        }
        requireOurs(abs, a);
        if (((Integer) a.get("mode") & 0777) != 0700) {
            Files.setPosixFilePermissions(abs, PrivateFiles.DIR_0700);
        }
        return dir;
    }

    /**
     * Checks, without creating or changing anything, that {@code dir} exists and is a directory
     * of ours that nobody else could have filled: for a process that only reads what a daemon
     * left there (a client reading the daemon's address and token).
     *
     * @throws NoSuchFileException when it does not exist
     * @throws UnsafePathException when it, or a directory on the way, could be controlled by
     *     another user
     */
    public Path existingPrivateDirectory(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        requireTrustedParents(abs);
        Map<String, Object> a = attributesOrNull(abs);
        if (a == null) {
            throw new NoSuchFileException(abs.toString());
        }
        requireOurs(abs, a);
        return dir;
    }

    /** A private directory: not a link, a directory, owned by this user, not writable by others. */
    private void requireOurs(Path abs, Map<String, Object> a) throws UnsafePathException {
        if (isSymlink(a)) {
            throw new UnsafePathException(abs, abs + " is a symbolic link (to " + target(abs) + "); limpet does not follow a "
                    + "symlinked private directory: use the real path, or remove the link");
        }
        if (!isDirectory(a)) {
            throw new UnsafePathException(abs, abs + " exists and is not a directory");
        }
        int owner = (Integer) a.get("uid");
        if (owner != uid) {
            throw new UnsafePathException(abs, abs + " is owned by " + owner(abs, owner) + ", not by " + self()
                    + " who runs limpet; whoever owns it controls what limpet reads there. Use a directory of your own "
                    + "(or remove this one if you trust nothing in it)");
        }
        int mode = (Integer) a.get("mode");
        if ((mode & GROUP_OR_OTHER_WRITE) != 0) {
            throw new UnsafePathException(abs, abs + " is writable by other users (mode " + octal(mode) + "), so what it holds "
                    + "may have been planted; check its contents, then chmod 700 " + abs);
        }
    }

    /**
     * Whether {@code dir} already is a private directory of ours (a directory, not a symbolic
     * link, owned by this user, no access for group or others, nothing on the way that others
     * could replace), without changing anything. For directories limpet only uses when they are,
     * such as {@code $XDG_RUNTIME_DIR}.
     */
    public boolean isPrivateDirectory(Path dir) {
        try {
            Path abs = dir.toAbsolutePath().normalize();
            Map<String, Object> a = attributesOrNull(abs);
            if (a == null || isSymlink(a) || !isDirectory(a) || (Integer) a.get("uid") != uid || ((Integer) a.get("mode") & 0077) != 0) {
                return false;
            }
            requireTrustedParents(abs);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Checks a file limpet is about to read a secret or an identity from: when it exists it must
     * be a regular file (not a symbolic link) owned by this user. Returns false when it does not
     * exist.
     */
    public boolean ownFileIfPresent(Path file) throws IOException {
        Path abs = file.toAbsolutePath().normalize();
        Map<String, Object> a = attributesOrNull(abs);
        if (a == null) {
            return false;
        }
        if (isSymlink(a)) {
            throw new UnsafePathException(abs, abs + " is a symbolic link (to " + target(abs) + "); refusing to read it. Remove it "
                    + "and start limpet again");
        }
        if (!Boolean.TRUE.equals(a.get("isRegularFile"))) {
            throw new UnsafePathException(abs, abs + " is not a regular file; remove it and start limpet again");
        }
        int owner = (Integer) a.get("uid");
        if (owner != uid) {
            throw new UnsafePathException(abs, abs + " is owned by " + owner(abs, owner) + ", not by " + self()
                    + "; it may have been planted. Remove it and start limpet again");
        }
        return true;
    }

    /** How much of a file others may see: what {@link #readTrusted} requires of its mode. */
    public enum Exposure {
        /** Settings that decide what runs or whom to trust (config, agent profiles, hosts lists): nobody else may write them. */
        SETTINGS(GROUP_OR_OTHER_WRITE, "writable by other users", "chmod go-w"),
        /** Credentials (pairing secrets, a relay credential, tokens): nobody else may read or write them. */
        SECRET(0077, "readable or writable by other users", "chmod 600");

        private final int forbidden;
        private final String what;
        private final String fix;

        Exposure(int forbidden, String what, String fix) {
            this.forbidden = forbidden;
            this.what = what;
            this.fix = fix;
        }
    }

    /**
     * Reads a file limpet acts on (what to run, whom to trust, a credential), after the data
     * root's rule: every directory on the way trusted (so nobody else can swap it between this
     * check and the read), the file itself a regular file, not a symbolic link, owned by this
     * user or root, with no more access for others than {@code exposure} allows. It is opened
     * without following links. Checked on every read, so a file changed while limpet runs is
     * judged again.
     *
     * @throws java.nio.file.NoSuchFileException when it does not exist
     * @throws UnsafePathException naming the file, why it is refused and what to do
     * @throws IOException when it is larger than {@code maxBytes} or cannot be read
     */
    public byte[] readTrusted(Path file, Exposure exposure, int maxBytes) throws IOException {
        Path abs = file.toAbsolutePath().normalize();
        try {
            requireTrustedParents(abs);
        } catch (UnsafePathException e) {
            throw new UnsafePathException(e.path(), "refusing to read " + abs + ": " + e.getMessage());
        }
        Map<String, Object> a = attributesOrNull(abs);
        if (a == null) {
            throw new NoSuchFileException(abs.toString());
        }
        if (isSymlink(a)) {
            throw new UnsafePathException(abs, abs + " is a symbolic link (to " + target(abs) + "); limpet reads what decides what it runs "
                    + "or whom it trusts only from a file of its own: replace the link with the file itself");
        }
        if (!Boolean.TRUE.equals(a.get("isRegularFile"))) {
            throw new UnsafePathException(abs, abs + " is not a regular file");
        }
        int owner = (Integer) a.get("uid");
        if (owner != uid && owner != ROOT) {
            throw new UnsafePathException(abs, abs + " is owned by " + owner(abs, owner) + ", not by " + self()
                    + " who runs limpet; whoever owns it decides what limpet runs or trusts. Refusing to read it: check what it "
                    + "holds, then make it yours (or remove it)");
        }
        int mode = (Integer) a.get("mode");
        if ((mode & exposure.forbidden) != 0) {
            throw new UnsafePathException(abs, abs + " is " + exposure.what + " (mode " + octal(mode) + "); refusing to read it. Check what "
                    + "it holds, then " + exposure.fix + " " + abs);
        }
        try (var ch = Files.newByteChannel(abs, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            if (ch.size() > maxBytes) {
                throw new IOException(abs + " is larger than " + maxBytes + " bytes");
            }
            // One byte more than allowed, so a file that grew past the limit since size() is caught.
            // readNBytes grows its buffer with what it reads: the limit is a bound, not an
            // allocation (these files are read every second by some callers, their limits are MBs).
            byte[] bytes = Channels.newInputStream(ch).readNBytes(maxBytes + 1);
            if (bytes.length > maxBytes) {
                throw new IOException(abs + " is larger than " + maxBytes + " bytes");
            }
            return bytes;
        }
    }

    /** {@link #readTrusted} as UTF-8 text. */
    public String readTrustedString(Path file, Exposure exposure, int maxBytes) throws IOException {
        return new String(readTrusted(file, exposure, maxBytes), StandardCharsets.UTF_8);
    }

    /**
     * Checks every directory on the way to {@code path} (not {@code path} itself), following
     * symbolic links on the way one by one. Stops at the first component that does not exist
     * yet: it will be created inside a directory already checked.
     */
    public void requireTrustedParents(Path path) throws IOException {
        Path abs = path.toAbsolutePath().normalize();
        Path parent = abs.getParent();
        if (parent == null) {
            return;
        }
        Path cur = abs.getRoot();
        requireTrustedDirectory(cur, attributes(cur));
        Deque<String> todo = new ArrayDeque<>();
        for (Path name : parent) {
            todo.addLast(name.toString());
        }
        int links = 0;
        while (!todo.isEmpty()) {
            String name = todo.removeFirst();
            if (name.equals(".") || name.isEmpty()) {
                continue;
            }
            if (name.equals("..")) {
                cur = cur.getParent() == null ? cur : cur.getParent();
                continue;
            }
            Path next = cur.resolve(name);
            Map<String, Object> a = attributesOrNull(next);
            if (a == null) {
                return; // created later, inside a checked directory
            }
            if (isSymlink(a)) {
                int owner = (Integer) a.get("uid");
                if (owner != uid && owner != ROOT) {
                    throw new UnsafePathException(next, next + " (on the way to " + abs + ") is a symbolic link owned by " + owner(next, owner)
                            + ", who could point it elsewhere; use a path that does not go through it");
                }
                if (++links > MAX_LINKS) {
                    throw new UnsafePathException(next, "too many symbolic links on the way to " + abs);
                }
                Path target = Files.readSymbolicLink(next);
                Deque<String> expanded = new ArrayDeque<>();
                for (Path t : target) {
                    expanded.addLast(t.toString());
                }
                while (!expanded.isEmpty()) {
                    todo.addFirst(expanded.removeLast());
                }
                if (target.isAbsolute()) {
                    cur = target.getRoot();
                }
                continue;
            }
            if (!isDirectory(a)) {
                throw new UnsafePathException(next, next + " (on the way to " + abs + ") is not a directory");
            }
            requireTrustedDirectory(next, a);
            cur = next;
        }
    }

    private void requireTrustedDirectory(Path dir, Map<String, Object> a) throws UnsafePathException {
        int owner = (Integer) a.get("uid");
        int mode = (Integer) a.get("mode");
        if (owner != uid && owner != ROOT) {
            throw new UnsafePathException(dir, dir + " is owned by " + owner(dir, owner) + ", who could replace what limpet keeps below it; "
                    + "use a directory that only you (or root) control");
        }
        if ((mode & GROUP_OR_OTHER_WRITE) != 0 && (mode & STICKY) == 0) {
            throw new UnsafePathException(dir, dir + " is writable by other users (mode " + octal(mode) + ") without the sticky bit, "
                    + "so they could replace what limpet keeps below it; use another directory, or chmod o-w,g-w " + dir);
        }
    }

    private static Map<String, Object> attributes(Path p) throws IOException {
        return Files.readAttributes(p, "unix:uid,mode,isSymbolicLink,isDirectory,isRegularFile", LinkOption.NOFOLLOW_LINKS);
    }

    private static Map<String, Object> attributesOrNull(Path p) throws IOException {
        try {
            return attributes(p);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static boolean isSymlink(Map<String, Object> a) {
        return Boolean.TRUE.equals(a.get("isSymbolicLink"));
    }

    private static boolean isDirectory(Map<String, Object> a) {
        return Boolean.TRUE.equals(a.get("isDirectory"));
    }

    private static String target(Path link) {
        try {
            return Files.readSymbolicLink(link).toString();
        } catch (IOException e) {
            return "?";
        }
    }

    private static String octal(int mode) {
        return String.format("%04o", mode & 07777);
    }

    /** "uid 1001 (alice)" for the owner of {@code p}, when the name is known. */
    private static String owner(Path p, int uid) {
        try {
            String name = Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName();
            return name.equals(Integer.toString(uid)) ? "uid " + uid : "uid " + uid + " (" + name + ")";
        } catch (IOException | RuntimeException e) {
            return "uid " + uid;
        }
    }

    /** This user, as the messages name it. */
    private String self() {
        String name = System.getProperty("user.name");
        return uid == Posix.getuid() && name != null && !name.equals("?") ? "uid " + uid + " (" + name + ")" : "uid " + uid;
    }
}
