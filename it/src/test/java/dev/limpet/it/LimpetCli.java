package dev.limpet.it;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a client verb as a separate process, the way a person or a script would. */
public final class LimpetCli {
    public record Result(int exitCode, String out, String err) {}

    private LimpetCli() {}

    public static Result run(Path dataRoot, String... args) throws IOException, InterruptedException {
        return run(Map.of("LIMPET_HOME", dataRoot.toString()), args);
    }

    public static Result run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return run(List.of(), env, args);
    }

    /** With {@code jvm} flags added to the verb's JVM (a class-loading log). */
    public static Result run(List<String> jvm, Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(DaemonProcess.java());
        cmd.addAll(DaemonProcess.fastJvm());
        cmd.addAll(jvm);
        cmd.addAll(List.of("-jar", DaemonProcess.jar().toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("LIMPET_HOME");
        pb.environment().remove("LIMPET_URL");
        pb.environment().remove("LIMPET_TOKEN");
        pb.environment().remove("LIMPET_SESSION_ID");
        pb.environment().putAll(env);
        return run(pb, "limpet " + String.join(" ", args));
    }

    /** Runs {@code pb} with its stdin closed and returns what it printed; {@code what} names it if it hangs. */
    public static Result run(ProcessBuilder pb, String what) throws IOException, InterruptedException {
        Process p = pb.start();
        p.getOutputStream().close();
        byte[][] captured = new byte[2][];
        Thread o = Thread.ofVirtual().start(() -> captured[0] = readAll(p.getInputStream()));
        Thread e = Thread.ofVirtual().start(() -> captured[1] = readAll(p.getErrorStream()));
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(what + " did not finish in 120 s");
        }
        o.join();
        e.join();
        return new Result(p.exitValue(), new String(captured[0], StandardCharsets.UTF_8), new String(captured[1], StandardCharsets.UTF_8));
    }

    private static byte[] readAll(InputStream in) {
        try {
            return in.readAllBytes();
        } catch (IOException ex) {
            return new byte[0];
        }
    }
}
