package dev.limpet.app;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code limpet completion bash|zsh|fish}: a completion script for the shell. The verbs and their
 * options come from picocli's generator (bash; zsh loads the same through bashcompinit); the
 * session a verb acts on is completed from the running daemon ({@code limpet ls --names}: ids and
 * labels), for every verb whose first argument is {@code ID|LABEL}.
 */
@Command(name = "completion", description = {
        "Print a shell completion script: bash, zsh or fish.",
        "bash: source <(limpet completion bash)   zsh: source <(limpet completion zsh)   fish: limpet completion fish | source"})
final class CompletionCommand implements Callable<Integer> {
    static final String SESSION_PARAM = "ID|LABEL";

    @Parameters(index = "0", paramLabel = "SHELL", description = "bash, zsh or fish.")
    String shell;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine root = spec.root().commandLine();
        String script = switch (shell) {
            case "bash" -> bash(root);
            case "zsh" -> "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n" + bash(root);
            case "fish" -> fish(root);
            default -> null;
        };
        if (script == null) {
            spec.commandLine().getErr().println("limpet: completion knows bash, zsh and fish, not '" + shell + "'");
            return 2;
        }
        spec.commandLine().getOut().print(script);
        spec.commandLine().getOut().flush();
        return 0;
    }

    /** Verbs whose first argument names a session. */
    static List<String> sessionVerbs(CommandLine root) {
        TreeSet<String> verbs = new TreeSet<>();
        for (Map.Entry<String, CommandLine> e : root.getSubcommands().entrySet()) {
            List<PositionalParamSpec> positionals = e.getValue().getCommandSpec().positionalParameters();
            if (!positionals.isEmpty() && SESSION_PARAM.equals(positionals.get(0).paramLabel())) {
                verbs.add(e.getKey());
            }
        }
        return List.copyOf(verbs);
    }

    static String bash(CommandLine root) {
        String generated = AutoComplete.bash("limpet", root);
        // picocli registers its function last; ours wraps it, so drop its registration.
        generated = generated.replaceAll("(?m)^\\s*complete -F _complete_limpet.*$", "");
        return generated + """

                # limpet: the session a verb acts on, from the running daemon.
                _limpet_complete() {
                  local cur="${COMP_WORDS[COMP_CWORD]}"
                  if [[ $COMP_CWORD -eq 2 && "$cur" != -* ]]; then
                    case "${COMP_WORDS[1]}" in
                      %s)
                        COMPREPLY=( $(compgen -W "$(limpet ls --names 2>/dev/null)" -- "$cur") )
                        return 0 ;;
                    esac
                  fi
                  _complete_limpet "$@"
                }
                complete -F _limpet_complete -o default limpet
                """.formatted(String.join("|", sessionVerbs(root)));
    }

    static String fish(CommandLine root) {
        StringBuilder out = new StringBuilder("# limpet completion for fish: limpet completion fish | source\n");
        out.append("complete -c limpet -f\n");
        for (Map.Entry<String, CommandLine> e : root.getSubcommands().entrySet()) {
            String[] description = e.getValue().getCommandSpec().usageMessage().description();
            out.append("complete -c limpet -n __fish_use_subcommand -a ").append(e.getKey());
            if (description.length > 0) {
                out.append(" -d ").append(fishQuote(description[0]));
            }
            out.append('\n');
            for (var o : e.getValue().getCommandSpec().options()) {
                String longName = o.longestName();
                if (longName.startsWith("--")) {
                    out.append("complete -c limpet -n '__fish_seen_subcommand_from ").append(e.getKey()).append("' -l ")
                            .append(longName.substring(2));
                    if (o.description().length > 0) {
                        out.append(" -d ").append(fishQuote(o.description()[0]));
                    }
                    out.append('\n');
                }
            }
        }
        out.append("complete -c limpet -n '__fish_seen_subcommand_from ").append(String.join(" ", sessionVerbs(root)))
                .append("' -a '(limpet ls --names 2>/dev/null)'\n");
        return out.toString();
    }

    private static String fishQuote(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
