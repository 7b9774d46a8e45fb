package dev.limpet.terminal.os;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Private directories and files as another user could attack them: symbolic links, planted
 * directories and files, parents others may write to. Ownership by another user is real (chown,
 * as root) where the test can do it, and seen through the eyes of another uid otherwise.
 */
class PathTrustTest {
    /** A uid that owns nothing here. */
    static final int STRANGER = 61_777;

    @TempDir
    Path tmp;
    final PathTrust us = PathTrust.forThisProcess();

    static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    static void chmod(Path p, String perms) throws Exception {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(perms));
    }

    static void assumeRoot() {
        assumeTrue(Posix.getuid() == 0, "needs root to give a file to another uid (chown)");
    }

    @Test
    void aMissingDirectoryIsCreatedWithItsParentsAsPrivate() throws Exception {
        Path dir = tmp.resolve("a/b/root");
        us.privateDirectory(dir);
        assertThat(mode(dir)).isEqualTo("rwx------");
        assertThat((Integer) Files.getAttribute(dir, "unix:uid")).isEqualTo(Posix.getuid());
    }

    @Test
    void anExistingDirectoryOfOursIsTightenedTo0700() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("root"));
        chmod(dir, "rwxr-xr-x");
        us.privateDirectory(dir);
        assertThat(mode(dir)).isEqualTo("rwx------");
    }

    @Test
    void aSymlinkedDirectoryIsRefusedAndItsTargetIsLeftUntouched() throws Exception {
        Path target = Files.createDirectory(tmp.resolve("target"));
        chmod(target, "rwxr-xr-x");
        Path link = Files.createSymbolicLink(tmp.resolve("root"), target);
        assertThatThrownBy(() -> us.privateDirectory(link)).isInstanceOfSatisfying(UnsafePathException.class,
                e -> assertThat(e.getMessage()).contains("symbolic link").contains(target.toString()));
        assertThat(mode(target)).isEqualTo("rwxr-xr-x");
        try (var files = Files.list(target)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void aDirectoryWritableByOthersIsRefusedNotRepaired() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("root"));
        chmod(dir, "rwxrwxrwx");
        assertThatThrownBy(() -> us.privateDirectory(dir)).isInstanceOfSatisfying(UnsafePathException.class,
                e -> assertThat(e.getMessage()).contains("writable by other users").contains("0777"));
        assertThat(mode(dir)).isEqualTo("rwxrwxrwx");
    }

    @Test
    void aDirectoryAnotherUserOwnsIsRefusedAsThatUserSeesIt() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("root"));
        assertThatThrownBy(() -> new PathTrust(STRANGER).privateDirectory(dir)).isInstanceOf(UnsafePathException.class)
                .hasMessageContaining("is owned by uid " + Posix.getuid());
    }

    @Test
    void aDirectoryPlantedByAnotherUserIsRefusedEvenByRootWhoCouldChmodIt() throws Exception {
        assumeRoot();
        Path planted = Files.createDirectory(tmp.resolve("planted"));
        chmod(planted, "rwxrwxrwx");
        Files.setAttribute(planted, "unix:uid", STRANGER);
        Path token = Files.writeString(planted.resolve("auth-token"), "f".repeat(64));
        Files.setAttribute(token, "unix:uid", STRANGER);
        assertThatThrownBy(() -> us.privateDirectory(planted)).isInstanceOfSatisfying(UnsafePathException.class,
                e -> assertThat(e.getMessage()).contains("owned by uid " + STRANGER));
        assertThat(mode(planted)).as("nothing was changed").isEqualTo("rwxrwxrwx");
        assertThatThrownBy(() -> us.ownFileIfPresent(token)).isInstanceOf(UnsafePathException.class).hasMessageContaining("planted");
    }

    @Test
    void anExistingPrivateDirectoryIsCheckedWithoutBeingCreatedOrChanged() throws Exception {
        assertThatThrownBy(() -> us.existingPrivateDirectory(tmp.resolve("missing"))).isInstanceOf(NoSuchFileException.class);
        assertThat(tmp.resolve("missing")).doesNotExist();
        Path dir = Files.createDirectory(tmp.resolve("root"));
        chmod(dir, "rwxr-x---");
        us.existingPrivateDirectory(dir);
        assertThat(mode(dir)).as("read-only check: left as it was").isEqualTo("rwxr-x---");
        chmod(dir, "rwxrwxrwx");
        assertThatThrownBy(() -> us.existingPrivateDirectory(dir)).isInstanceOf(UnsafePathException.class)
                .hasMessageContaining("writable by other users");
        Path link = Files.createSymbolicLink(tmp.resolve("link"), dir);
        assertThatThrownBy(() -> us.existingPrivateDirectory(link)).isInstanceOf(UnsafePathException.class)
                .hasMessageContaining("symbolic link");
        assertThatThrownBy(() -> new PathTrust(STRANGER).existingPrivateDirectory(dir)).isInstanceOf(UnsafePathException.class);
    }

    @Test
    void aParentOthersMayWriteToWithoutTheStickyBitIsRefused() throws Exception {
        Path parent = Files.createDirectory(tmp.resolve("shared"));
        chmod(parent, "rwxrwxrwx");
        assertThatThrownBy(() -> us.privateDirectory(parent.resolve("root"))).isInstanceOfSatisfying(UnsafePathException.class,
                e -> assertThat(e.getMessage()).contains(parent.toString()).contains("sticky"));
        assertThat(parent.resolve("root")).doesNotExist();
    }

    @Test
    void aStickyParentLikeTmpIsFine() throws Exception {
        Path parent = Files.createDirectory(tmp.resolve("sticky"));
        Files.setAttribute(parent, "unix:mode", 01777);
        us.privateDirectory(parent.resolve("root"));
        assertThat(parent.resolve("root")).isDirectory();
    }

    @Test
    void aParentOwnedByAnotherUserIsRefused() throws Exception {
        Path parent = Files.createDirectory(tmp.resolve("theirs"));
        // As a stranger sees our directory: owned by someone else who is not root.
        assumeTrue(Posix.getuid() != 0, "as root every directory of ours is root's; the chown case below covers it");
        assertThatThrownBy(() -> new PathTrust(STRANGER).privateDirectory(parent.resolve("root"))).isInstanceOf(UnsafePathException.class);
    }

    @Test
    void aParentGivenToAnotherUserIsRefused() throws Exception {
        assumeRoot();
        Path parent = Files.createDirectory(tmp.resolve("theirs"));
        Files.setAttribute(parent, "unix:uid", STRANGER);
        assertThatThrownBy(() -> us.privateDirectory(parent.resolve("root"))).isInstanceOfSatisfying(UnsafePathException.class,
                e -> assertThat(e.getMessage()).contains(parent.toString()).contains("uid " + STRANGER));
    }

    @Test
    void aSymlinkOnTheWayIsFollowedAndWhatItPointsAtIsCheckedToo() throws Exception {
        Path real = Files.createDirectory(tmp.resolve("real"));
        Path link = Files.createSymbolicLink(tmp.resolve("via"), Path.of("real"));
        us.privateDirectory(link.resolve("root"));
        assertThat(real.resolve("root")).isDirectory();
        chmod(real, "rwxrwxrwx");
        assertThatThrownBy(() -> us.privateDirectory(link.resolve("other"))).isInstanceOfSatisfying(UnsafePathException.class,
                e -> assertThat(e.getMessage()).contains(real.toString()));
    }

    @Test
    void aSymlinkOnTheWayOwnedByAnotherUserIsRefused() throws Exception {
        assumeRoot();
        Files.createDirectory(tmp.resolve("real"));
        Path link = Files.createSymbolicLink(tmp.resolve("via"), tmp.resolve("real"));
        Files.setAttribute(link, "unix:uid", STRANGER, LinkOption.NOFOLLOW_LINKS);
        assertThatThrownBy(() -> us.privateDirectory(link.resolve("root"))).isInstanceOfSatisfying(UnsafePathException.class,
                e -> assertThat(e.getMessage()).contains("symbolic link owned by uid " + STRANGER));
    }

    @Test
    void aPrivateFileThatIsASymlinkIsRefusedAndAMissingOneIsReportedAbsent() throws Exception {
        Path dir = us.privateDirectory(tmp.resolve("root"));
        Path secret = Files.writeString(tmp.resolve("elsewhere"), "x");
        Path link = Files.createSymbolicLink(dir.resolve("auth-token"), secret);
        assertThatThrownBy(() -> us.ownFileIfPresent(link)).isInstanceOf(UnsafePathException.class).hasMessageContaining("symbolic link");
        assertThat(us.ownFileIfPresent(dir.resolve("daemon-id"))).isFalse();
        assertThat(us.ownFileIfPresent(Files.writeString(dir.resolve("mine"), "x"))).isTrue();
    }

    @Test
    void xdgRuntimeDirStyleDirectoriesAreRecognisedOnlyWhenPrivate() throws Exception {
        Path run = Files.createDirectory(tmp.resolve("run"));
        chmod(run, "rwx------");
        assertThat(us.isPrivateDirectory(run)).isTrue();
        chmod(run, "rwxr-xr-x");
        assertThat(us.isPrivateDirectory(run)).isFalse();
        assertThat(us.isPrivateDirectory(tmp.resolve("missing"))).isFalse();
        chmod(run, "rwx------");
        assertThat(new PathTrust(STRANGER).isPrivateDirectory(run)).isFalse();
    }

    @Test
    void aTrustedFileIsReadWholeUpToItsLimitAndRefusedOneBytePastIt() throws Exception {
        Path dir = us.privateDirectory(tmp.resolve("root"));
        Path file = Files.write(dir.resolve("pairings.json"), "x".repeat(64).getBytes());
        chmod(file, "rw-------");
        assertThat(us.readTrusted(file, PathTrust.Exposure.SECRET, 64)).hasSize(64);
        assertThatThrownBy(() -> us.readTrusted(file, PathTrust.Exposure.SECRET, 63)).hasMessageContaining("larger than 63 bytes");
    }

    @Test
    void aLargeLimitBoundsTheReadWithoutBeingAllocated() throws Exception {
        Path dir = us.privateDirectory(tmp.resolve("root"));
        Path file = Files.writeString(dir.resolve("pairings.json"), "{\"pairings\":[]}");
        chmod(file, "rw-------");
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        us.readTrusted(file, PathTrust.Exposure.SECRET, 16 << 20); // warm up: classes and their statics
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 10; i++) {
            us.readTrusted(file, PathTrust.Exposure.SECRET, 16 << 20);
        }
        // some callers read their file every second: ten reads of a small file must not cost ten times the limit
        assertThat(threads.getCurrentThreadAllocatedBytes() - before).isLessThan(4L << 20);
    }
}
