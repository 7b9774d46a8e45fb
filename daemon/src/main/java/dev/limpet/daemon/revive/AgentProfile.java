package dev.limpet.daemon.revive;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How to recognise one coding agent from its argv, launch it with a conversation id limpet knows,
 * and resume that conversation after the program was lost (docs/protocol.md, "Agent profiles").
 *
 * <p>Templates are argv lists with placeholders: {@code {argv}} (the session's whole argv, as many
 * elements), {@code {program}} (argv[0]), {@code {args}} (argv[1..], as many elements) and
 * {@code {id}} (the conversation id).
 *
 * @param name      the agent kind stored with the session, e.g. {@code claude}
 * @param programs  file names of argv[0] that are this agent ({@code claude} matches {@code /usr/bin/claude})
 * @param arguments argv elements that, anywhere in argv, mark this agent (for agents run through an interpreter)
 * @param launch    arguments added at spawn to give the agent a conversation id limpet chose ({@code {id}}); empty: none
 * @param idPattern a regular expression whose first group is the conversation id, found in the session's output
 *                  (its journal) when limpet did not choose the id; null: none
 * @param resume    the argv that continues conversation {@code {id}}
 * @param fallback  the argv used, with a warning, when the id is unknown (e.g. "the most recent conversation"); null: refuse
 * @param hooks     which hook wiring limpet gives the agent at spawn and revive (issue 14): {@code "claude"} appends
 *                  {@code --settings <data_root>/hooks/claude-settings.json}; null: none
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public record AgentProfile(String name, List<String> programs, List<String> arguments, List<String> launch, String idPattern,
        List<String> resume, List<String> fallback, String hooks) {
    /** The hook wirings limpet knows. */
    public static final String CLAUDE_HOOKS = "claude";

    /** A profile without hook wiring. */
    public AgentProfile(String name, List<String> programs, List<String> arguments, List<String> launch, String idPattern,
            List<String> resume, List<String> fallback) {
        this(name, programs, arguments, launch, idPattern, resume, fallback, null);
    }

    public AgentProfile {
        programs = programs == null ? List.of() : List.copyOf(programs);
        arguments = arguments == null ? List.of() : List.copyOf(arguments);
        launch = launch == null ? List.of() : List.copyOf(launch);
        resume = resume == null ? List.of() : List.copyOf(resume);
        fallback = fallback == null ? null : List.copyOf(fallback);
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
        if (launch.isEmpty() && idPattern == null) {
            throw new IllegalArgumentException("give \"launch\" (limpet chooses the id) or \"idPattern\" (the agent prints it)");
        }
        if (hooks != null && !hooks.equals(CLAUDE_HOOKS)) {
            throw new IllegalArgumentException("\"hooks\" must be \"" + CLAUDE_HOOKS + "\" or absent");
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

    static List<String> expand(List<String> template, List<String> argv, String id) {
        List<String> out = new ArrayList<>();
        for (String t : template) {
            switch (t) {
                case "{argv}" -> out.addAll(argv);
                case "{program}" -> out.add(argv.getFirst());
                case "{args}" -> out.addAll(argv.subList(1, argv.size()));
                default -> out.add(id == null ? t : t.replace("{id}", id));
            }
        }
        return out;
    }
}
