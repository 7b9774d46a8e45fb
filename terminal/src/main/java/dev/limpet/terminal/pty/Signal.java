package dev.limpet.terminal.pty;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Signals limpet sends to sessions, with their Linux numbers (x86_64 and aarch64 agree). */
public enum Signal {
    HUP(1), INT(2), QUIT(3), KILL(9), USR1(10), USR2(12), PIPE(13), ALRM(14), TERM(15), CONT(18), STOP(19), TSTP(20), WINCH(28);

    /** Names of every Linux signal 1–31, for describing deaths by signals this enum does not list. */
    private static final String[] LINUX_NAMES = {
        null, "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM", "TERM",
        "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS"
    };

    private final int number;

    Signal(int number) {
        this.number = number;
    }

    /** The signal number, e.g. 15 for {@link #TERM}. */
    public int number() {
        return number;
    }

    /** E.g. {@code "SIGTERM"}. */
    public String signalName() {
        return "SIG" + name();
    }

    /**
     * Parses {@code "TERM"}, {@code "SIGTERM"}, {@code "term"} or {@code "15"}.
     *
     * @throws IllegalArgumentException naming the input and the accepted signals when none matches
     */
    public static Signal parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("no signal given");
        }
        String s = text.trim().toUpperCase(Locale.ROOT);
        if (s.startsWith("SIG")) {
            s = s.substring(3);
        }
        for (Signal signal : values()) {
            if (signal.name().equals(s) || String.valueOf(signal.number).equals(s)) {
                return signal;
            }
        }
        throw new IllegalArgumentException("unknown signal '" + text + "' (known: "
                + Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", ")) + ")");
    }

    /** The enum constant for {@code number}, or null when this enum does not list it. */
    public static Signal ofNumber(int number) {
        for (Signal signal : values()) {
            if (signal.number == number) {
                return signal;
            }
        }
        return null;
    }

    /** E.g. {@code "SIGSEGV"} for 11, {@code "signal 40"} for a real-time signal. */
    public static String describe(int number) {
        return number > 0 && number < LINUX_NAMES.length ? "SIG" + LINUX_NAMES[number] : "signal " + number;
    }
}
