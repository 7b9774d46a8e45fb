package dev.limpet.app;

import dev.limpet.app.config.ConfigException;
import dev.limpet.app.config.ConfiguredDefaults;
import dev.limpet.app.service.InstallCommand;
import dev.limpet.app.service.ServiceCommand;
import dev.limpet.client.cli.CliException;
import dev.limpet.client.cli.ClientVerbs;
import dev.limpet.client.connection.ConfigDirs;
import dev.limpet.protocol.LimpetVersion;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
            dev.limpet.worker.WorkerMain.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length == 2 && args[0].equals(AOT_TRAINING)) {
            System.exit(trainVerbs(Path.of(args[1])));
        }
        if (args.length == 1 && args[0].equals(TRAIN_CACHES)) {
            System.exit(trainCaches());
        }
        if (args.length == 0 || !(args[0].equals("daemon") || args[0].equals("relay"))) {
            // Client verbs print their own output; only warnings belong on stderr.
            System.setProperty("limpet.log.level", System.getProperty("limpet.log.level", "WARN"));
        }
        System.exit(run(args));
    }

    /**
     * What to say when {@code args} name a command there is not ({@code limpet atach}, {@code limpet
     * help atach}): the closest ones by edit distance, or where the list is; null when they name one.
     */
    static String unknownCommand(String... args) {
        String typed = args.length > 0 && !args[0].startsWith("-") ? args[0] : null;
        if (typed != null && typed.equals("help") && args.length > 1 && !args[1].startsWith("-")) {
            typed = args[1];
        }
        if (typed == null || COMMANDS.contains(typed)) {
            return null;
        }
        List<String> close = ClosestVerb.to(typed, COMMANDS);
        String shown = dev.limpet.protocol.SafeText.of(typed, 40);
        return "limpet: '" + shown + "' is not a limpet command" + (close.isEmpty() ? "" : "; did you mean "
                + String.join(" or ", close.stream().map(c -> "'" + c + "'").toList()) + "?") + " (limpet --help lists them)";
    }

    /** Hidden: trains the AOT caches beside this jar (launchers run it; {@link dev.limpet.app.service.CacheTraining}). */
    static final String TRAIN_CACHES = "train-caches";

    private static int trainCaches() {
        var jar = dev.limpet.daemon.startup.StartupCaches.jarOfThisProcess();
        if (jar.isEmpty()) {
            System.err.println("limpet: train-caches needs limpet run from its jar");
            return 2;
        }
        try {
            Path javaCommand = Path.of(System.getProperty("java.home"), "bin", "java");
            var outcome = new dev.limpet.app.service.CacheTraining(javaCommand, jar.get(), Clock.systemUTC()).run(System.err);
            return outcome == dev.limpet.app.service.CacheTraining.Outcome.FAILED ? 1 : 0;
        } catch (IOException e) {
            System.err.println("limpet: cannot train the start-up caches: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            return 1;
        }
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
    static int trainVerbs(Path dataRoot) {
        String root = dataRoot.toString();
        StringWriter newOut = new StringWriter();
        CommandLine create = commandLine("new");
        create.setOut(new PrintWriter(newOut));
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
        PrintWriter discard = new PrintWriter(Writer.nullWriter());
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

    /** The verbs of a day's work, listed first by {@code limpet --help} under a heading of their own. */
    static final List<String> DAILY = List.of("new", "ls", "attach", "send", "capture");

    /** Every command and verb by name, in the order help lists them: the daily ones first. */
    static final List<String> COMMANDS = commandNames();

    private static List<String> commandNames() {
        List<String> names = new ArrayList<>(DAILY);
        for (String verb : ClientVerbs.NAMES) {
            if (!names.contains(verb)) {
                names.add(verb);
            }
        }
        names.addAll(List.of("daemon", "relay", "pair", "install", "service", "doctor", "completion", "help"));
        return List.copyOf(names);
    }

    /**
     * The command {@code name} names, newly built (only when asked: building picocli's model of
     * every command costs each verb's JVM more than the verb's own work); null for none.
     */
    static Object command(String name) {
        return switch (name) {
            case "daemon" -> new DaemonCommand();
            case "relay" -> new dev.limpet.relay.RelayCommand();
            case "pair" -> new PairCommand();
            case "install" -> new InstallCommand();
            case "service" -> new ServiceCommand();
            case "doctor" -> new DoctorCommand();
            case "completion" -> new CompletionCommand();
            case "help" -> new CommandLine.HelpCommand();
            default -> ClientVerbs.create(name);
        };
    }

    /** Every command and verb, as {@code limpet} runs them. */
    static CommandLine commandLine() {
        return commandLine(null);
    }

    /**
     * The root command with only {@code verb}'s subcommand when it names one (building picocli's
     * model of every command costs each verb's JVM more than the verb's own work), with none for
     * {@code --version}, and with all of them for anything else (help, a typo's suggestions) and for
     * {@code completion}, which lists them.
     */
    static CommandLine commandLine(String verb) {
        CommandLine cli = new CommandLine(new Main());
        if (verb != null && COMMANDS.contains(verb) && !verb.equals("completion") && !verb.equals("help")) {
            cli.addSubcommand(verb, command(verb));
        } else if (!"-V".equals(verb) && !"--version".equals(verb)) {
            COMMANDS.forEach(name -> cli.addSubcommand(name, command(name)));
        }
        cli.getSubcommands().values().forEach(Main::addHelpOption);
        cli.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_COMMAND_LIST_HEADING, help -> "");
        cli.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_COMMAND_LIST, Main::commandList);
        return cli;
    }

    /**
     * {@code -h}/{@code --help} on every command and its own subcommands, added here rather than
     * declared on each, so a new verb cannot miss it: usage on standard output, exit 0, before any
     * required argument is asked for.
     */
    private static void addHelpOption(CommandLine command) {
        CommandLine.Model.CommandSpec spec = command.getCommandSpec();
        if (spec.options().stream().noneMatch(CommandLine.Model.OptionSpec::usageHelp)) {
            spec.addOption(CommandLine.Model.OptionSpec.builder("-h", "--help").usageHelp(true)
                    .description("Show this help and exit.").build());
        }
        command.getSubcommands().values().forEach(Main::addHelpOption);
    }

    /** {@code limpet --help}'s commands: the daily ones first, then the rest, each list in {@link #COMMANDS}' order. */
    private static String commandList(CommandLine.Help help) {
        Map<String, CommandLine.Help> daily = new LinkedHashMap<>();
        Map<String, CommandLine.Help> more = new LinkedHashMap<>();
        help.subcommands().forEach((name, h) -> (DAILY.contains(name) ? daily : more).put(name, h));
        StringBuilder out = new StringBuilder();
        if (!daily.isEmpty()) {
            out.append(String.format("%nDaily commands:%n")).append(help.commandList(daily));
        }
        if (!more.isEmpty()) {
            out.append(String.format("%nMore commands (limpet help COMMAND, or COMMAND --help, for one):%n")).append(help.commandList(more));
        }
        return out.toString();
    }

    static int run(Map<String, String> env, String... args) {
        String unknown = unknownCommand(args);
        if (unknown != null) {
            System.err.println(unknown);
            System.err.flush();
            return 2;
        }
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
