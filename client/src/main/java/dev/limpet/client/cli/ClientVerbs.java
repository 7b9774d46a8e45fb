package dev.limpet.client.cli;

import java.util.List;

/**
 * The client verbs, for the launcher to register: each by its name, built only when asked, so a
 * verb's JVM builds (reflects on) its own command's model and no other. Every name is its
 * command's {@code @Command(name)} ({@code MainCommandsTest} holds them together). A switch rather
 * than a map of constructor references: each reference is a call site a verb's JVM links at start,
 * for a dozen verbs it never runs.
 */
public final class ClientVerbs {
    private ClientVerbs() {}

    /** Every verb's name, in the order help lists them. */
    public static final List<String> NAMES = List.of("status", "open", "new", "ls", "send", "capture", "kill", "rm", "rename",
            "revive", "attach", "hook", "wait");

    /** The verb {@code name} names, newly built; null for a name not in {@link #NAMES}. */
    public static Object create(String name) {
        return switch (name) {
            case "status" -> new StatusCommand();
            case "open" -> new OpenCommand();
            case "new" -> new NewCommand();
            case "ls" -> new LsCommand();
            case "send" -> new SendCommand();
            case "capture" -> new CaptureCommand();
            case "kill" -> new KillCommand();
            case "rm" -> new RmCommand();
            case "rename" -> new RenameCommand();
            case "revive" -> new ReviveCommand();
            case "attach" -> new AttachCommand();
            case "hook" -> new HookCommand();
            case "wait" -> new WaitCommand();
            default -> null;
        };
    }
}
