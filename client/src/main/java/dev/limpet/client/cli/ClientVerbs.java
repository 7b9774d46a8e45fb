package dev.limpet.client.cli;

import java.util.List;

/** The REST-backed client verbs, for the launcher to register. */
public final class ClientVerbs {
    private ClientVerbs() {}

    public static List<Object> all() {
        return List.of(new StatusCommand(), new OpenCommand(), new NewCommand(), new LsCommand(), new SendCommand(), new CaptureCommand(),
                new KillCommand(), new RmCommand(), new RenameCommand(), new ReviveCommand(),
                new HookCommand(), new WaitCommand());
    }
}
