package dev.limpet.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A data root planted by someone else, end to end: another user prepares a data root (with their own
 * auth-token) or the shared socket directory, and root runs {@code limpet daemon}. The daemon must
 * stop with a clear message and exit 1, never serve with the planted token.
 */
class DataRootSecurityIT {
    static final String PLANTED = "ab".repeat(32);
    Path shared;
    Optional<AnotherUser> attacker;

    @BeforeEach
    void setUp() throws Exception {
        attacker = AnotherUser.find();
        // A directory everyone may create things in, as /tmp is (root's, sticky).
        shared = Files.createTempDirectory(Path.of("/tmp"), "limpet-it-shared-");
        Files.setAttribute(shared, "unix:mode", 01777);
    }

    @AfterEach
    void tearDown() throws Exception {
        try (var all = Files.walk(shared)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    static LimpetCli.Result daemon(Path dataRoot, Map<String, String> env) throws Exception {
        return LimpetCli.run(env, "daemon", "--data-root", dataRoot.toString(), "--port", "0");
    }

    @Test
    void aRootDaemonRefusesADataRootAnotherUserPreparedWithTheirOwnToken() throws Exception {
        assumeTrue(attacker.isPresent(), AnotherUser.skipMessage());
        Path root = shared.resolve("root");
        attacker.get().sh("mkdir -m 777 " + root + " && printf '" + PLANTED + "\\n' > " + root + "/auth-token");

        LimpetCli.Result r = daemon(root, Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).startsWith("limpet: ").contains(root.toString()).contains("owned by uid " + attacker.get().uid)
                .doesNotContain("Exception");
        assertThat(r.out()).doesNotContain(PLANTED);
        assertThat((Integer) Files.getAttribute(root, "unix:mode") & 0777).as("not chmodded").isEqualTo(0777);
    }

    @Test
    void aSymlinkedDataRootStopsTheDaemonWithoutTouchingItsTarget() throws Exception {
        Path target = Files.createDirectory(shared.resolve("target"));
        Files.setAttribute(target, "unix:mode", 0755);
        Path link = Files.createSymbolicLink(shared.resolve("root"), target);
        LimpetCli.Result r = daemon(link, Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).startsWith("limpet: ").contains("symbolic link").doesNotContain("Exception");
        try (var files = Files.list(target)) {
            assertThat(files).isEmpty();
        }
        assertThat((Integer) Files.getAttribute(target, "unix:mode") & 0777).isEqualTo(0755);
    }

    @Test
    void aDataRootInADirectoryOthersMayWriteToWithoutTheStickyBitStopsTheDaemon() throws Exception {
        Path open = Files.createDirectory(shared.resolve("open"));
        Files.setAttribute(open, "unix:mode", 0777);
        LimpetCli.Result r = daemon(open.resolve("root"), Map.of());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains(open.toString()).contains("sticky");
    }

    @Test
    void aSocketDirectoryAnotherUserPreparedInTheTempDirStopsTheDaemon() throws Exception {
        assumeTrue(attacker.isPresent(), AnotherUser.skipMessage());
        Path tmp = Files.createDirectory(shared.resolve("tmp"));
        Files.setAttribute(tmp, "unix:mode", 01777);
        // A data root so deep that worker sockets must go to the temp dir.
        Path own = Files.createDirectory(shared.resolve("own"));
        Files.setAttribute(own, "unix:mode", 0700);
        Path deep = own.resolve("d".repeat(80)).resolve("root");
        attacker.get().sh("mkdir -m 777 " + tmp.resolve("limpet-root"));

        LimpetCli.Result r = daemon(deep, Map.of("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + tmp, "XDG_RUNTIME_DIR", ""));
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("limpet: ").contains(tmp.resolve("limpet-root").toString())
                .contains("owned by uid " + attacker.get().uid);
    }

    /**
     * The probe of the config directory: a root daemon started with another user's environment
     * ({@code sudo -E}: their XDG_CONFIG_HOME) must neither take their settings nor run their
     * agent profile. That user plants both; the daemon stops naming the file, and nothing of
     * theirs ran.
     */
    @Test
    void aRootDaemonRefusesSettingsAndProfilesAnotherUserPlanted() throws Exception {
        assumeTrue(attacker.isPresent(), AnotherUser.skipMessage());
        Path home = shared.resolve("home");
        Path pwned = shared.resolve("pwned");
        attacker.get().sh("mkdir -p " + home + "/limpet/agents && printf 'port = 7411\\n' > " + home + "/limpet/config.toml"
                + " && printf '{\"name\":\"bash\",\"programs\":[\"bash\"],\"launch\":[\"-c\",\"touch " + pwned
                + "; exec bash -i\",\"{id}\"],\"resume\":[\"{program}\"]}' > " + home + "/limpet/agents/bash.json");
        Path config = home.resolve("limpet/config.toml");

        LimpetCli.Result r = daemon(shared.resolve("own-root"), Map.of("XDG_CONFIG_HOME", home.toString()));
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).startsWith("limpet: ").contains(config.toString()).contains("owned by uid " + attacker.get().uid)
                .doesNotContain("Exception");
        assertThat(pwned).doesNotExist();
    }

    @Test
    void sqlitesNativeLibraryIsLoadedFromThePrivateDataRootNotFromTheSharedTempDir() throws Exception {
        Path root = Files.createDirectory(shared.resolve("native"));
        Files.setAttribute(root, "unix:mode", 0700);
        DaemonProcess d = DaemonProcess.start(root);
        try {
            List<String> sqlite = Files.readAllLines(Path.of("/proc", Long.toString(d.process.pid()), "maps")).stream()
                    .filter(l -> l.contains("libsqlitejdbc")).map(l -> l.substring(l.indexOf('/'))).distinct().toList();
            assertThat(sqlite).as("where /tmp is shared and often noexec, a planted or unloadable library").isNotEmpty()
                    .allMatch(f -> f.startsWith(root.resolve("native") + "/"));
            assertThat(Files.getPosixFilePermissions(root.resolve("native"))).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        } finally {
            d.stop();
        }
    }

    @Test
    void theDaemonPrintsItsTokenOnlyToATerminal() throws Exception {
        Path root = Files.createDirectory(shared.resolve("quiet"));
        Files.setAttribute(root, "unix:mode", 0700);
        DaemonProcess d = DaemonProcess.start(root);
        try {
            assertThat(d.banner).as("stdout is a pipe, as under systemd").doesNotContain(d.token).doesNotContain("#token=")
                    .contains("limpet open").contains(root.resolve("auth-token").toString());
        } finally {
            d.stop();
        }
    }

    @Test
    void aDaemonWhoseRootComesFromLimpetHomeStaysUpAndNamesThatRoot() throws Exception {
        Path root = Files.createDirectory(shared.resolve("home"));
        Files.setAttribute(root, "unix:mode", 0700);
        DaemonProcess d = DaemonProcess.start(root, 0, Map.of("LIMPET_HOME", root.toString()));
        try {
            assertThat(d.banner).contains(root.resolve("auth-token").toString());
            LimpetCli.Result ls = LimpetCli.run(root, "ls");
            assertThat(ls.exitCode()).as("%s", ls).isZero();
            assertThat(d.process.isAlive()).as("the daemon after it printed where it listens").isTrue();
        } finally {
            d.stop();
        }
    }
}
