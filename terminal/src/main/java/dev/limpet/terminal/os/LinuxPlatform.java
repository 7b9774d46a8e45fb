package dev.limpet.terminal.os;

import java.util.Locale;

/**
 * The platforms whose constants and struct layouts this package hard-codes: Linux with glibc on
 * x86_64 or aarch64. Both use the asm-generic ioctl, open-flag, errno and signal numbers.
 */
public final class LinuxPlatform {
    private static final String OS = System.getProperty("os.name", "?");
    private static final String ARCH = System.getProperty("os.arch", "?");

    private LinuxPlatform() {}

    /** Whether the native calls of this module can run here. */
    public static boolean isSupported() {
        String arch = ARCH.toLowerCase(Locale.ROOT);
        return OS.equals("Linux") && (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"));
    }

    /** @throws UnsupportedOperationException naming this platform when {@link #isSupported()} is false */
    public static void requireSupported() {
        if (!isSupported()) {
            throw new UnsupportedOperationException(unsupportedMessage());
        }
    }

    /** Why native PTYs cannot run here. */
    public static String unsupportedMessage() {
        return "native PTYs need Linux (glibc) on x86_64 or aarch64; this is " + OS + " on " + ARCH;
    }
}
