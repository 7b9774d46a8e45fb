package dev.limpet.app;

import picocli.CommandLine;

/** Registers {@code limpet attach} when this build has it. */
final class Attach {
    private Attach() {}

    static void register(CommandLine cli) {
        try {
            Class<?> attach = Class.forName("dev.limpet.client.cli.AttachCommand");
            cli.addSubcommand(attach.getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException e) {
            // not built yet
        }
    }
}
