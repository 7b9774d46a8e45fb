package dev.limpet.app;

import dev.limpet.app.config.ConfigException;
import dev.limpet.app.config.ConfiguredDefaults;
import dev.limpet.app.service.InstallCommand;
import dev.limpet.app.service.ServiceCommand;
import dev.limpet.client.cli.CliException;
import dev.limpet.client.connection.ConfigDirs;
import dev.limpet.client.cli.ClientVerbs;
import dev.limpet.protocol.LimpetVersion;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The single executable: the daemon, the pty-worker and every client verb are subcommands. */
@Command(name = "limpet", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Terminal and agent sessions that outlive their clients, daemon restarts and reboots.")
public final class Main {

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"limpet " + LimpetVersion.get()};
        }
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("pty-worker")) {
            // Before picocli and the daemon's classes load: a worker's class graph stays small.
            dev.limpet.worker.WorkerMain.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length == 2 && args[0].equals(AOT_TRAINING)) {
            System.exit(trainVerbs(java.nio.file.Path.of(args[1])));
        }
        if (args.length == 0 || !(args[0].equals("daemon") || args[0].equals("relay"))) {
            // Client verbs print their own output; only warnings belong on stderr.
            System.setProperty("limpet.log.level", System.getProperty("limpet.log.level", "WARN"));
        }
        System.exit(run(args));
    }

    /** Hidden: the launcher's training run for the client verbs' AOT cache (see {@link #trainVerbs}). */
    static final String AOT_TRAINING = "aot-training";

    /**
     * The verbs' AOT cache is trained on what they really do: one JVM runs {@code new}, {@code ls},
     * {@code status}, {@code send}, {@code capture}, {@code kill} and {@code rm} against the running
     * daemon at {@code dataRoot} (a scratch one the launcher starts), so the classes of a real answer
     * (HTTP, JSON, table printing) land in the cache, not only those of "no daemon here".
     *
     * @return 0 when every verb succeeded, else the first failing verb's exit code
     */
    static int trainVerbs(java.nio.file.Path dataRoot) {
        String root = dataRoot.toString();
        java.io.StringWriter newOut = new java.io.StringWriter();
        CommandLine create = commandLine("new");
        create.setOut(new java.io.PrintWriter(newOut));
        int exit = create.execute("new", "--data-root", root, "--label", "aot-training", "--", "cat");
        if (exit != 0) {
            return exit;
        }
        String id = newOut.toString().strip();
        String[][] verbs = {
            {"ls", "--data-root", root}, {"ls", "--json", "--data-root", root}, {"status", "--data-root", root},
            {"send", "--data-root", root, id, "hello"}, {"capture", "--data-root", root, id},
            {"kill", "--data-root", root, id}, {"rm", "--data-root", root, id},
        };
        java.io.PrintWriter discard = new java.io.PrintWriter(java.io.Writer.nullWriter());
        for (String[] verb : verbs) {
            CommandLine cli = commandLine(verb[0]);
            cli.setOut(discard);
            exit = cli.execute(verb);
            if (exit != 0) {
                System.err.println("limpet: AOT training: `limpet " + String.join(" ", verb) + "` exited " + exit);
                return exit;
            }
        }
        return 0;
    }

    static int run(String... args) {
        return run(System.getenv(), args);
    }

    /** Every command and verb by name, in the order help lists them; each built only when asked. */
    static java.util.SequencedMap<String, java.util.function.Supplier<Object>> subcommands() {
        java.util.SequencedMap<String, java.util.function.Supplier<Object>> all = new java.util.LinkedHashMap<>();
        all.put("daemon", DaemonCommand::new);
        all.put("completion", CompletionCommand::new);
        all.put("service", ServiceCommand::new);
        all.put("install", InstallCommand::new);
        all.put("doctor", DoctorCommand::new);
        all.put("relay", dev.limpet.relay.RelayCommand::new);
        all.put("pair", PairCommand::new);
        all.putAll(ClientVerbs.byName());
        return all;
    }

    /** Every command and verb, as {@code limpet} runs them. */
    static CommandLine commandLine() {
        return commandLine(null);
    }

    /**
     * The root command with only {@code verb}'s subcommand when it names one (building picocli's
     * model of every command costs each verb's JVM more than the verb's own work); with all of them
     * for anything else (help, a typo's suggestions) and for {@code completion}, which lists them.
     */
    static CommandLine commandLine(String verb) {
        CommandLine cli = new CommandLine(new Main());
        var all = subcommands();
        if (verb != null && all.containsKey(verb) && !verb.equals("completion")) {
            cli.addSubcommand(verb, all.get(verb).get());
        } else {
            all.forEach((name, command) -> cli.addSubcommand(name, command.get()));
        }
        return cli;
    }

    static int run(java.util.Map<String, String> env, String... args) {
        CommandLine cli = commandLine(args.length > 0 ? args[0] : null);
        if (args.length > 0 && args[0].equals("daemon")) {
            // Only the daemon reads the settings file: a broken file never stops a client verb.
            CommandLine daemon = cli.getSubcommands().get("daemon");
            try {
                ConfiguredDefaults defaults = ConfiguredDefaults.load(daemon.getCommandSpec(), args, env, ConfigDirs.limpetConfigDir(env,
                        System.getProperty("user.home")));
                daemon.setDefaultValueProvider(defaults);
                ((DaemonCommand) daemon.getCommand()).defaults = defaults;
            } catch (ConfigException e) {
                cli.getErr().println("limpet: " + e.getMessage());
                cli.getErr().flush();
                return 2;
            }
        }
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof CliException ce) {
                cmd.getErr().println("limpet: " + ce.getMessage());
                cmd.getErr().flush();
                return ce.exitCode();
            }
            throw e;
        });
        return cli.execute(args);
    }
}
