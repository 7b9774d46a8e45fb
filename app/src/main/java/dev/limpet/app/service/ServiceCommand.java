package dev.limpet.app.service;

import dev.limpet.client.connection.ConfigDirs;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code limpet service install|uninstall|status}: the daemon as a user service (systemd on Linux,
 * launchd on macOS) that restarts it when it fails and never takes the sessions down with it.
 */
@Command(name = "service", description = {
        "Run the daemon as a user service (systemd --user on Linux, a launchd agent on macOS).",
        "install: write the unit and (unless --no-start) enable and start it; uninstall: stop it and remove the unit "
                + "(sessions keep running); status: where the unit is and whether it runs."})
public final class ServiceCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "ACTION", description = "install, uninstall or status.")
    String action;

    @Option(names = "--no-start", description = "install: only write the unit file.")
    boolean noStart;

    @Spec
    CommandSpec spec;

    /** Environment of the process (tests replace it). */
    Map<String, String> env = System.getenv();
    /** The host's OS name (tests replace it). */
    String os = System.getProperty("os.name");
    Installation installation;

    @Override
    public Integer call() throws IOException, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean mac = os.toLowerCase(Locale.ROOT).contains("mac");
        Path file = mac ? Path.of(System.getProperty("user.home"), "Library", "LaunchAgents", ServiceFiles.LAUNCHD_LABEL + ".plist")
                : systemdUserDir().resolve(ServiceFiles.UNIT_NAME);
        switch (action) {
            case "install" -> {
                Installation inst = installation != null ? installation : Installation.current();
                if (!inst.isJar()) {
                    err.println("limpet: service install needs limpet run from its jar (it runs from " + inst.jar() + ")");
                    return 1;
                }
                if (inst.inBuildDirectory()) {
                    err.println("limpet: note: " + inst.jar() + " is a build output the next build rewrites; `limpet install` puts a copy "
                            + "under ~/.local first, and `limpet service install` from there points the service at that copy");
                }
                List<String> environment = new ArrayList<>();
                for (String name : List.of("LIMPET_HOME", "LIMPET_CONFIG")) {
                    if (env.get(name) != null && !env.get(name).isBlank()) {
                        environment.add(name + "=" + env.get(name));
                    }
                }
                String content;
                try {
                    content = mac
                            ? ServiceFiles.launchdPlist(inst.daemonCommand(), environment, Path.of(System.getProperty("user.home"), "Library",
                                    "Logs", "limpet.log"))
                            : ServiceFiles.systemdUnit(inst.daemonCommand(), environment);
                } catch (IllegalArgumentException e) {
                    err.println("limpet: " + e.getMessage());
                    return 2;
                }
                Files.createDirectories(file.getParent());
                Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
                Files.writeString(tmp, content, StandardCharsets.UTF_8);
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                out.println("wrote " + file);
                if (noStart) {
                    out.println(mac ? "start it with: launchctl load -w " + file : "start it with: systemctl --user enable --now limpet");
                    return 0;
                }
                return mac ? run(out, err, "launchctl", "load", "-w", file.toString())
                        : systemctl(out, err, "daemon-reload") == 0 ? systemctl(out, err, "enable", "--now", ServiceFiles.UNIT_NAME) : 1;
            }
            case "uninstall" -> {
                if (Files.exists(file)) {
                    if (mac) {
                        run(out, err, "launchctl", "unload", "-w", file.toString());
                    } else {
                        systemctl(out, err, "disable", "--now", ServiceFiles.UNIT_NAME);
                    }
                }
                boolean removed = Files.deleteIfExists(file);
                out.println(removed ? "removed " + file + " (sessions keep running; `limpet daemon` serves them again)" : "no unit at " + file);
                if (removed && !mac) {
                    systemctl(out, err, "daemon-reload");
                }
                return 0;
            }
            case "status" -> {
                out.println((Files.exists(file) ? "unit: " : "no unit at ") + file);
                if (!mac && Files.exists(file)) {
                    systemctl(out, err, "is-active", ServiceFiles.UNIT_NAME);
                }
                return 0;
            }
            default -> {
                err.println("limpet: service wants install, uninstall or status, not '" + action + "'");
                return 2;
            }
        }
    }

    Path systemdUserDir() {
        return ConfigDirs.limpetConfigDir(env, System.getProperty("user.home")).getParent().resolve("systemd").resolve("user");
    }

    private int systemctl(PrintWriter out, PrintWriter err, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("systemctl", "--user"));
        cmd.addAll(List.of(args));
        return run(out, err, cmd.toArray(String[]::new));
    }

    /** Runs a service manager command; where there is none (a container, CI), says so and what to run instead. */
    private int run(PrintWriter out, PrintWriter err, String... cmd) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            err.println("limpet: " + cmd[0] + " is not available here (" + e.getMessage() + "); the unit file is written, start it where "
                    + cmd[0] + " runs: " + String.join(" ", cmd));
            return 1;
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        if (!output.isEmpty()) {
            out.println(output);
        }
        if (p.exitValue() != 0) {
            err.println("limpet: `" + String.join(" ", cmd) + "` exited with " + p.exitValue());
        }
        return p.exitValue();
    }
}
