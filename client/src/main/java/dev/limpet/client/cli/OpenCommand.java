package dev.limpet.client.cli;

import dev.limpet.client.connection.ConfigDirs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "open", description = {
        "Print the web UI's link with its token, and open it in a browser ($BROWSER, else xdg-open).",
        "The link only works for this daemon; keep it to yourself."})
final class OpenCommand extends Verb {
    private static final Duration BROWSER_PATIENCE = Duration.ofSeconds(3);
    /** How long a started browser has to read the forwarding page before it is deleted anyway. */
    private static final Duration PAGE_PATIENCE = Duration.ofSeconds(10);

    @Option(names = "--no-browser", description = "Only print the link.")
    boolean noBrowser;

    @Override
    public Integer call() {
        DaemonHttp http = daemon();
        // The daemon answers and takes this token: the link will work.
        http.get("/api/status");
        String link = UiLink.withToken(http.endpoint());
        if (!common.json) {
            // First, so the link is there however long a browser takes.
            out().println(link);
            out().flush();
        }
        BrowserLauncher.Outcome outcome = noBrowser ? null : openInBrowser(http.endpoint(), link);
        if (common.json) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("link", link);
            json.put("opened_with", outcome instanceof BrowserLauncher.Outcome.Opened o ? o.command() : null);
            if (outcome instanceof BrowserLauncher.Outcome.NotOpened n) {
                json.put("not_opened", n.reason());
            }
            printJson(json);
        }
        var err = spec.commandLine().getErr();
        switch (outcome) {
            case BrowserLauncher.Outcome.Opened o -> err.println("limpet: opened the link with " + o.command());
            case BrowserLauncher.Outcome.NotOpened n -> err.println("limpet: did not open a browser: " + n.reason()
                    + "; open the link yourself");
            case null -> { }
        }
        err.flush();
        return 0;
    }

    private static BrowserLauncher.Outcome openInBrowser(DaemonEndpoint endpoint, String link) {
        Map<String, String> env = System.getenv();
        Path page;
        try {
            LauncherPage.deleteLeftovers(ConfigDirs.limpetConfigDir());
            page = LauncherPage.write(ConfigDirs.limpetConfigDir(), endpoint.baseUrl().toString(), link);
        } catch (IOException e) {
            return new BrowserLauncher.Outcome.NotOpened("cannot write the page that forwards to the link: " + e.getMessage());
        }
        List<List<String>> candidates = BrowserCommands.candidates(env.get("BROWSER"), BrowserCommands.onPath("xdg-open", env.get("PATH")),
                BrowserCommands.graphical(env.get("DISPLAY"), env.get("WAYLAND_DISPLAY")), page.toUri().toString());
        BrowserLauncher.Outcome outcome = new BrowserLauncher(BROWSER_PATIENCE).open(candidates);
        try {
            // the page holds the token: gone once the browser read it (or no browser was started)
            if (outcome instanceof BrowserLauncher.Outcome.Opened) {
                LauncherPage.deleteOnceRead(page, PAGE_PATIENCE);
            } else {
                Files.deleteIfExists(page);
            }
        } catch (IOException e) {
            System.err.println("limpet: warning: could not delete " + page + " (it holds the token): " + e.getMessage());
        }
        return outcome;
    }
}
