package dev.limpet.testkit;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.UUID;

/**
 * Behaves like a coding agent's CLI, so tests can prove "resumed with the right id" without a
 * real agent.
 *
 * <p>Usage: {@code TestAgent <state-dir> [--silent] [--resume <id>]} ({@code --silent}: never print the
 * conversation id, as an agent whose id cannot be found would). Appends the argv it was started with to
 * {@code <state-dir>/argv.log} (one line each start). Without {@code --resume} it starts a new
 * conversation and prints {@code conversation <uuid>}; with it, it reads
 * {@code <state-dir>/<id>.conversation} and prints {@code resumed <id> after N messages}, or, when
 * that conversation does not exist, prints {@code no conversation <id>} and exits 3. Each line it
 * then reads is a message: counted in the state file and echoed as {@code agent: <line>}.
 *
 * <p>With {@code --hook <command>} it also reports its state as a real agent's hooks would,
 * running {@code sh -c '<command> <state>'} and waiting for it: {@code waiting_input} once
 * ready and after each answer; {@code working} while it handles a message; the message {@code work}
 * keeps it {@code working} until the next line; {@code ask} makes it ask for approval
 * ({@code pending_approval}) until the next line.
 */
public final class TestAgent {
    private TestAgent() {}

    /** Runs the hook command with {@code state}, as an agent's hook would, and waits for it; none: nothing. */
    private static void report(String hook, String state) throws IOException {
        if (hook == null) {
            return;
        }
        Process p = new ProcessBuilder("sh", "-c", hook + " " + state).inheritIO()
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        try {
            int exit = p.waitFor();
            if (exit != 0) {
                System.out.println("agent: hook " + state + " failed with " + exit);
                System.out.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("argv.log"), String.join(" ", args) + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        List<String> rest = List.of(args).subList(1, args.length);
        String id;
        int messages;
        int resume = rest.indexOf("--resume");
        if (resume >= 0) {
            id = rest.get(resume + 1);
            Path state = dir.resolve(id + ".conversation");
            if (!Files.exists(state)) {
                System.out.println("no conversation " + id);
                System.out.flush();
                System.exit(3);
            }
            messages = Integer.parseInt(Files.readString(state).trim());
            System.out.println("resumed " + id + " after " + messages + " messages");
        } else {
            id = UUID.randomUUID().toString();
            messages = 0;
            Files.writeString(dir.resolve(id + ".conversation"), "0");
            if (!rest.contains("--silent")) {
                System.out.println("conversation " + id);
            }
        }
        int hookAt = rest.indexOf("--hook");
        String hook = hookAt >= 0 ? rest.get(hookAt + 1) : null;
        System.out.println("agent ready");
        System.out.flush();
        report(hook, "waiting_input");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String held = null;
        for (String line; (line = in.readLine()) != null; ) {
            messages++;
            Files.writeString(dir.resolve(id + ".conversation"), Integer.toString(messages));
            if (held == null) {
                report(hook, "working");
            }
            System.out.println("agent: " + line);
            System.out.flush();
            held = switch (line.strip()) {
                case "work" -> "working";
                case "ask" -> "pending_approval";
                default -> null;
            };
            if (held != null) {
                System.out.println(held.equals("pending_approval") ? "agent: may I? (next line answers)" : "agent: " + held);
                System.out.flush();
            }
            report(hook, held == null ? "waiting_input" : held);
        }
    }
}
