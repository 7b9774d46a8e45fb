package dev.limpet.daemon.revive;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How to recognise one coding agent from its argv, launch it with a conversation id limpet knows,
 * and resume that conversation after the program was lost (docs/protocol.md, "Agent profiles").
 *
 * <p>Templates are argv lists with placeholders: {@code {argv}} (the session's whole argv, as many
 * elements), {@code {program}} (argv[0]), {@code {args}} (argv[1..], as many elements),
 * {@code {options}} (argv[1..] without the session flags, which a resume replaces, and without the
 * prompt, which a resume must not send again) and {@code {id}} (the conversation id).
 *
 * <p>Why the option lists: a person's own flags ({@code claude --model X --permission-mode Y}) must
 * survive a revive, but the flags that chose a conversation ({@code --continue}, {@code --resume X})
 * must not (the CLIs refuse them beside {@code --session-id}), and neither must the prompt given on
 * the command line (a revive would send it again: the agent would act on its own). Telling a
 * prompt from an option's value needs the options that take one, so each profile lists them, read
 * from the pinned CLI's {@code --help}.
 *
 * @param name           the agent kind stored with the session, e.g. {@code claude}
 * @param programs       file names of argv[0] that are this agent ({@code claude} matches {@code /usr/bin/claude})
 * @param arguments      argv elements that, anywhere in argv, mark this agent (for agents run through an interpreter)
 * @param launch         arguments added at spawn to give the agent a conversation id limpet chose ({@code {id}}); empty: none
 * @param idPattern      a regular expression whose first group is the conversation id, found in the session's output
 *                       (its journal) when limpet did not choose the id; null: none
 * @param resume         the argv that continues conversation {@code {id}}
 * @param fallback       the argv used, with a warning, when the id is unknown (e.g. "the most recent conversation"); null: none
 * @param hooks          which hook wiring limpet gives the agent at spawn and revive: {@code "claude"}, {@code "codex"},
 *                       {@code "gemini"} (see {@code activity/AgentHooks}); null: none
 * @param sessionFlags   options that choose the conversation themselves ({@code --continue}, {@code --resume}): when the
 *                       argv has one, nothing is added at launch, and a resume drops them; one written with a trailing
 *                       {@code =} ({@code "--resume="}) takes the next argument as its value unless it starts with {@code -}
 * @param valueOptions   the agent's other options that take a value (kept on resume with their value)
 * @param promptOptions  options whose value is a prompt ({@code gemini -i TEXT}): dropped on resume, like a positional prompt
 * @param store          where the agent keeps its conversations, so limpet can tell whether one was saved and find its
 *                       id: {@code "claude"}, {@code "codex"}, {@code "gemini"} (see {@link ConversationFiles}); null: unknown
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public record AgentProfile(String name, List<String> programs, List<String> arguments, List<String> launch, String idPattern,
        List<String> resume, List<String> fallback, String hooks, List<String> sessionFlags, List<String> valueOptions,
        List<String> promptOptions, String store) {
    /** The hook wirings limpet knows. */
    public static final String CLAUDE_HOOKS = "claude";
    public static final String CODEX_HOOKS = "codex";
    public static final String GEMINI_HOOKS = "gemini";
    static final Set<String> HOOK_WIRINGS = Set.of(CLAUDE_HOOKS, CODEX_HOOKS, GEMINI_HOOKS);
    /** A session flag that takes a value names it with this suffix: {@code "--resume="}. */
    static final String TAKES_VALUE = "=";

    /** A profile without hook wiring or option lists (what a user's minimal profile file holds). */
    public AgentProfile(String name, List<String> programs, List<String> arguments, List<String> launch, String idPattern,
            List<String> resume, List<String> fallback) {
        this(name, programs, arguments, launch, idPattern, resume, fallback, null, null, null, null, null);
    }

    public AgentProfile {
        programs = programs == null ? List.of() : List.copyOf(programs);
        arguments = arguments == null ? List.of() : List.copyOf(arguments);
        launch = launch == null ? List.of() : List.copyOf(launch);
        resume = resume == null ? List.of() : List.copyOf(resume);
        fallback = fallback == null ? null : List.copyOf(fallback);
        sessionFlags = sessionFlags == null ? List.of() : List.copyOf(sessionFlags);
        valueOptions = valueOptions == null ? List.of() : List.copyOf(valueOptions);
        promptOptions = promptOptions == null ? List.of() : List.copyOf(promptOptions);
    }

    /** Checks a profile read from a file; the message names what is wrong. */
    void validate() {
        if (name == null || !name.matches("[a-z0-9][a-z0-9_-]{0,39}")) {
            throw new IllegalArgumentException("\"name\" must be 1-40 characters of a-z, 0-9, _ and -");
        }
        if (programs.isEmpty() && arguments.isEmpty()) {
            throw new IllegalArgumentException("\"programs\" or \"arguments\" must name how to recognise the agent");
        }
        if (resume.isEmpty() || !resume.contains("{id}")) {
            throw new IllegalArgumentException("\"resume\" must be an argv template holding {id}");
        }
        if (!launch.isEmpty() && !launch.contains("{id}")) {
            throw new IllegalArgumentException("\"launch\" must hold {id} when it is given");
        }
        if (launch.isEmpty() && idPattern == null && store == null) {
            throw new IllegalArgumentException("give \"launch\" (limpet chooses the id), \"idPattern\" (the agent prints it)"
                    + " or \"store\" (limpet reads it from the agent's files)");
        }
        if (hooks != null && !HOOK_WIRINGS.contains(hooks)) {
            throw new IllegalArgumentException("\"hooks\" must be one of " + HOOK_WIRINGS + " or absent");
        }
        if (store != null && !ConversationFiles.STORES.contains(store)) {
            throw new IllegalArgumentException("\"store\" must be one of " + ConversationFiles.STORES + " or absent");
        }
        if (idPattern != null) {
            if (Pattern.compile(idPattern).matcher("").groupCount() < 1) {
                throw new IllegalArgumentException("\"idPattern\" needs a group that captures the id");
            }
        }
    }

    boolean matches(List<String> argv) {
        if (argv.isEmpty()) {
            return false;
        }
        Path first = Path.of(argv.getFirst()).getFileName();
        if (first != null && programs.contains(first.toString())) {
            return true;
        }
        return argv.stream().anyMatch(arguments::contains);
    }

    /** Whether limpet gives the agent its id at launch. */
    public boolean choosesId() {
        return !launch.isEmpty();
    }

    /** Whether the person's argv chose the conversation itself ({@code --continue}, {@code --resume X}, …). */
    public boolean choosesConversation(List<String> argv) {
        return parse(argv).chosenConversation;
    }

    /** A fresh id for {@link #launch}. */
    static String newId() {
        return UUID.randomUUID().toString();
    }

    /** The argv that starts conversation {@code id} (the launch arguments added). */
    List<String> launchArgv(List<String> argv, String id) {
        List<String> out = new ArrayList<>(argv);
        out.addAll(expand(launch, argv, id));
        return out;
    }

    /** {@code argv[0]} and the options a resume keeps ({@code {options}}): the person's flags without session flags and prompt. */
    List<String> kept(List<String> argv) {
        List<String> out = new ArrayList<>();
        out.add(argv.getFirst());
        out.addAll(keptArguments(argv));
        return out;
    }

    /**
     * The arguments a revive keeps. A profile that names none of its agent's options (a user's
     * minimal profile) cannot tell a prompt from a program's own argument or an option's value
     * ({@code java -cp X Main}), so it keeps them all rather than start a broken command line.
     */
    private List<String> keptArguments(List<String> argv) {
        boolean readsOptions = !sessionFlags.isEmpty() || !valueOptions.isEmpty() || !promptOptions.isEmpty();
        return readsOptions ? parse(argv).options : argv.subList(1, argv.size());
    }

    /** The last id the agent printed in {@code output}, if any. */
    public Optional<String> findId(String output) {
        if (idPattern == null) {
            return Optional.empty();
        }
        Matcher m = Pattern.compile(idPattern).matcher(output);
        String last = null;
        while (m.find()) {
            last = m.group(1);
        }
        return Optional.ofNullable(last);
    }

    List<String> expand(List<String> template, List<String> argv, String id) {
        List<String> out = new ArrayList<>();
        for (String t : template) {
            switch (t) {
                case "{argv}" -> out.addAll(argv);
                case "{program}" -> out.add(argv.getFirst());
                case "{args}" -> out.addAll(argv.subList(1, argv.size()));
                case "{options}" -> out.addAll(keptArguments(argv));
                default -> out.add(id == null ? t : t.replace("{id}", id));
            }
        }
        return out;
    }

    /** argv[1..] read with the profile's option lists. */
    private record Parsed(List<String> options, boolean chosenConversation) {}

    /**
     * Reads argv[1..] as the agent's parser would, as far as a revive needs: an option in
     * {@code --name=value} form carries its value; a session flag or value option written
     * {@code name=} in its list takes the next argument as its value unless that starts with
     * {@code -} (as the CLIs' optional values do); anything else that does not start with {@code -}
     * is a positional (the prompt, or a subcommand's argument); after {@code --} everything is.
     */
    private Parsed parse(List<String> argv) {
        List<String> options = new ArrayList<>();
        boolean chosen = false;
        boolean positionalOnly = false;
        for (int i = 1; i < argv.size(); i++) {
            String a = argv.get(i);
            if (positionalOnly) {
                continue;
            }
            if (a.equals("--")) {
                positionalOnly = true;
                continue;
            }
            String flag = a.startsWith("--") && a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            boolean inline = !flag.equals(a);
            boolean hasNext = !inline && i + 1 < argv.size() && !argv.get(i + 1).startsWith("-");
            if (sessionFlags.contains(flag) || sessionFlags.contains(flag + TAKES_VALUE)) {
                chosen = true;
                if (sessionFlags.contains(flag + TAKES_VALUE) && hasNext) {
                    i++;
                }
            } else if (promptOptions.contains(flag)) {
                if (hasNext) {
                    i++;
                }
            } else if (valueOptions.contains(flag)) {
                options.add(a);
                if (hasNext) {
                    options.add(argv.get(++i));
                }
            } else if (a.startsWith("-")) {
                options.add(a);
            }
            // else: a positional (the prompt): a resume must not send it again
        }
        return new Parsed(List.copyOf(options), chosen);
    }
}
