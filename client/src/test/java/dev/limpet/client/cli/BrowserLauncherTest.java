package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real processes: small shell scripts stand in for browsers the way a user's $BROWSER would be. */
class BrowserLauncherTest {
    @TempDir
    Path dir;

    final BrowserLauncher launcher = new BrowserLauncher(Duration.ofSeconds(5));

    Path script(String name, String body) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    @Test
    void theFirstCommandThatSucceedsTakesThePage() throws Exception {
        Path seen = dir.resolve("seen");
        Path browser = script("browser", "printf '%s' \"$1\" > " + seen);
        var outcome = launcher.open(List.of(List.of(browser.toString(), "file:///page.html")));
        assertThat(outcome).isEqualTo(new BrowserLauncher.Outcome.Opened(browser.toString()));
        assertThat(Files.readString(seen)).isEqualTo("file:///page.html");
    }

    @Test
    void aFailingOrMissingCommandLetsTheNextOneTry() throws Exception {
        Path seen = dir.resolve("seen");
        Path failing = script("failing", "exit 3");
        Path working = script("working", "printf '%s' \"$1\" > " + seen);
        var outcome = launcher.open(List.of(List.of(dir.resolve("no-such-browser").toString(), "x"),
                List.of(failing.toString(), "x"), List.of(working.toString(), "x")));
        assertThat(outcome).isEqualTo(new BrowserLauncher.Outcome.Opened(working.toString()));
        assertThat(Files.readString(seen)).isEqualTo("x");
    }

    @Test
    void whenEveryCommandFailsTheOutcomeSaysWhyForEach() throws Exception {
        Path failing = script("failing", "exit 3");
        var outcome = launcher.open(List.of(List.of(dir.resolve("no-such-browser").toString(), "x"), List.of(failing.toString(), "x")));
        assertThat(outcome).isInstanceOf(BrowserLauncher.Outcome.NotOpened.class);
        String reason = ((BrowserLauncher.Outcome.NotOpened) outcome).reason();
        assertThat(reason).contains("no-such-browser").contains(failing + " exited with 3");
    }

    @Test
    void aBrowserStillRunningAfterThePatienceCountsAsOpenedAndKeepsRunning() throws Exception {
        Path browser = script("foreground-browser", "sleep 30");
        var outcome = new BrowserLauncher(Duration.ofMillis(200)).open(List.of(List.of(browser.toString(), "x")));
        assertThat(outcome).isEqualTo(new BrowserLauncher.Outcome.Opened(browser.toString()));
        List<ProcessHandle> left = ProcessHandle.current().children().filter(p -> p.info().commandLine().orElse("").contains("foreground-browser")).toList();
        assertThat(left).isNotEmpty();
        left.forEach(ProcessHandle::destroyForcibly);
    }

    @Test
    void withoutAnyCommandItSaysThatNoBrowserIsThere() {
        var outcome = launcher.open(List.of());
        assertThat(outcome).isInstanceOf(BrowserLauncher.Outcome.NotOpened.class);
        assertThat(((BrowserLauncher.Outcome.NotOpened) outcome).reason()).contains("$BROWSER").contains("xdg-open");
    }
}
