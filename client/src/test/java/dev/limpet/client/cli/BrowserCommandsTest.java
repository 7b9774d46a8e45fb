package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrowserCommandsTest {
    static final String PAGE = "file:///home/u/.config/limpet/open-abc.html";
    static final Path XDG = Path.of("/usr/bin/xdg-open");

    @TempDir
    Path dir;

    @Test
    void browserEntriesComeFirstInTheirOrderThenXdgOpen() {
        assertThat(BrowserCommands.candidates("firefox:chromium --new-window", XDG, true, PAGE)).containsExactly(
                List.of("firefox", PAGE), List.of("chromium", "--new-window", PAGE), List.of("/usr/bin/xdg-open", PAGE));
    }

    @Test
    void percentSStandsForTheAddressAndDoublePercentForOnePercent() {
        assertThat(BrowserCommands.candidates("open-it --url=%s --pct=100%%", null, false, PAGE))
                .containsExactly(List.of("open-it", "--url=" + PAGE, "--pct=100%"));
    }

    @Test
    void xdgOpenIsLeftOutWithoutADisplay() {
        assertThat(BrowserCommands.candidates(null, XDG, false, PAGE)).isEmpty();
        assertThat(BrowserCommands.graphical(null, null)).isFalse();
        assertThat(BrowserCommands.graphical("", " ")).isFalse();
        assertThat(BrowserCommands.graphical(":0", null)).isTrue();
        assertThat(BrowserCommands.graphical(null, "wayland-0")).isTrue();
    }

    @Test
    void emptyBrowserEntriesAreIgnored() {
        assertThat(BrowserCommands.candidates("", null, true, PAGE)).isEmpty();
        assertThat(BrowserCommands.candidates(" : :w3m", null, true, PAGE)).containsExactly(List.of("w3m", PAGE));
    }

    @Test
    void onPathFindsOnlyExecutableFiles() throws Exception {
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        Files.writeString(a.resolve("xdg-open"), "not executable");
        Path exe = Files.writeString(b.resolve("xdg-open"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwx------"));
        assertThat(BrowserCommands.onPath("xdg-open", a + ":" + b)).isEqualTo(exe);
        assertThat(BrowserCommands.onPath("xdg-open", a.toString())).isNull();
        assertThat(BrowserCommands.onPath("xdg-open", null)).isNull();
    }
}
