package dev.limpet.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LauncherPageTest {
    static final String LINK = "http://127.0.0.1:7420/#token=" + "ab".repeat(32);

    @TempDir
    Path dir;

    @Test
    void thePageIsPrivateAndForwardsToTheLink() throws Exception {
        Path page = LauncherPage.write(dir.resolve("limpet"), "http://127.0.0.1:7420/", LINK);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(page))).isEqualTo("rw-------");
        String html = Files.readString(page);
        assertThat(html).contains("<meta http-equiv=\"refresh\" content=\"0;url=" + LINK + "\">")
                .contains("location.replace(\"" + LINK + "\")").contains("href=\"" + LINK + "\"");
    }

    @Test
    void oneDaemonKeepsOnePageAndAnotherDaemonGetsItsOwn() throws Exception {
        Path first = LauncherPage.write(dir, "http://127.0.0.1:7420/", LINK);
        Path again = LauncherPage.write(dir, "http://127.0.0.1:7420/", LINK.replace("ab", "cd"));
        Path other = LauncherPage.write(dir, "http://127.0.0.1:7421/", LINK);
        assertThat(again).isEqualTo(first);
        assertThat(Files.readString(first)).contains("cdcd");
        assertThat(other).isNotEqualTo(first);
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).allMatch(n -> n.startsWith("open-") && n.endsWith(".html"));
        }
    }

    @Test
    void aLinkCannotBreakOutOfTheAttributeOrTheScript() {
        String html = LauncherPage.html("http://x/#a\"><script>alert(1)</script>");
        assertThat(html).doesNotContain("<script>alert").contains("&quot;&gt;&lt;script&gt;").contains("\\u0022\\u003e\\u003cscript");
    }
}
