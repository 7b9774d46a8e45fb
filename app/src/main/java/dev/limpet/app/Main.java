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
        description = "Terminal and agent sessions that outlive their clients, daemon restarts and reboots.",
        subcommands = {DaemonCommand.class, CompletionCommand.class, ServiceCommand.class, InstallCommand.class,
                DoctorCommand.class, dev.limpet.relay.RelayCommand.class, PairCommand.class})
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
        if (args.length == 0 || !(args[0].equals("daemon") || args[0].equals("relay"))) {
            // Client verbs print their own output; only warnings belong on stderr.
            System.setProperty("limpet.log.level", System.getProperty("limpet.log.level", "WARN"));
        }
        System.exit(run(args));
    }

    static int run(String... args) {
        return run(System.getenv(), args);
    }

    /** Every command and verb, as {@code limpet} runs them. */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Main());
        for (Object verb : ClientVerbs.all()) {
            cli.addSubcommand(verb);
        }
        Attach.register(cli);
        return cli;
    }

    static int run(java.util.Map<String, String> env, String... args) {
        CommandLine cli = commandLine();
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
