package dev.limpet.client.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import java.util.function.Supplier;

/**
 * The client verbs, for the launcher to register: each by its name, built only when asked, so a
 * verb's JVM builds (reflects on) its own command's model and no other. Every key is its
 * command's {@code @Command(name)} ({@code ClientVerbsTest} holds them together).
 */
public final class ClientVerbs {
    private ClientVerbs() {}

    public static SequencedMap<String, Supplier<Object>> byName() {
        SequencedMap<String, Supplier<Object>> verbs = new LinkedHashMap<>();
        verbs.put("status", StatusCommand::new);
        verbs.put("open", OpenCommand::new);
        verbs.put("new", NewCommand::new);
        verbs.put("ls", LsCommand::new);
        verbs.put("send", SendCommand::new);
        verbs.put("capture", CaptureCommand::new);
        verbs.put("kill", KillCommand::new);
        verbs.put("rm", RmCommand::new);
        verbs.put("rename", RenameCommand::new);
        verbs.put("revive", ReviveCommand::new);
        verbs.put("attach", AttachCommand::new);
        verbs.put("hook", HookCommand::new);
        verbs.put("wait", WaitCommand::new);
        return verbs;
    }

    /** Every verb, built. */
    public static List<Object> all() {
        return byName().values().stream().map(Supplier::get).toList();
    }
}
