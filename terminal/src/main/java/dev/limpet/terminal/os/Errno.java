package dev.limpet.terminal.os;

import java.util.Map;

/**
 * Linux errno values this module reacts to, and human-readable descriptions of any errno.
 *
 * <p>The numbers are the asm-generic ones, identical on x86_64 and aarch64 (the only platforms
 * {@link LinuxPlatform} accepts).
 */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int ECHILD = 10;
    public static final int EAGAIN = 11;

    /** Name and message per errno; messages match glibc's strerror in the C locale. */
    private static final Map<Integer, String[]> KNOWN = Map.ofEntries(
            Map.entry(1, new String[] {"EPERM", "Operation not permitted"}),
            Map.entry(2, new String[] {"ENOENT", "No such file or directory"}),
            Map.entry(3, new String[] {"ESRCH", "No such process"}),
            Map.entry(4, new String[] {"EINTR", "Interrupted system call"}),
            Map.entry(5, new String[] {"EIO", "Input/output error"}),
            Map.entry(6, new String[] {"ENXIO", "No such device or address"}),
            Map.entry(7, new String[] {"E2BIG", "Argument list too long"}),
            Map.entry(8, new String[] {"ENOEXEC", "Exec format error"}),
            Map.entry(9, new String[] {"EBADF", "Bad file descriptor"}),
            Map.entry(10, new String[] {"ECHILD", "No child processes"}),
            Map.entry(11, new String[] {"EAGAIN", "Resource temporarily unavailable"}),
            Map.entry(12, new String[] {"ENOMEM", "Cannot allocate memory"}),
            Map.entry(13, new String[] {"EACCES", "Permission denied"}),
            Map.entry(14, new String[] {"EFAULT", "Bad address"}),
            Map.entry(16, new String[] {"EBUSY", "Device or resource busy"}),
            Map.entry(17, new String[] {"EEXIST", "File exists"}),
            Map.entry(20, new String[] {"ENOTDIR", "Not a directory"}),
            Map.entry(21, new String[] {"EISDIR", "Is a directory"}),
            Map.entry(22, new String[] {"EINVAL", "Invalid argument"}),
            Map.entry(23, new String[] {"ENFILE", "Too many open files in system"}),
            Map.entry(24, new String[] {"EMFILE", "Too many open files"}),
            Map.entry(25, new String[] {"ENOTTY", "Inappropriate ioctl for device"}),
            Map.entry(26, new String[] {"ETXTBSY", "Text file busy"}),
            Map.entry(28, new String[] {"ENOSPC", "No space left on device"}),
            Map.entry(32, new String[] {"EPIPE", "Broken pipe"}),
            Map.entry(36, new String[] {"ENAMETOOLONG", "File name too long"}),
            Map.entry(38, new String[] {"ENOSYS", "Function not implemented"}),
            Map.entry(40, new String[] {"ELOOP", "Too many levels of symbolic links"}));

    private Errno() {}

    /** The symbolic name, e.g. {@code "ENOENT"}, or {@code "errno 123"} for one not in the table. */
    public static String name(int errno) {
        String[] known = KNOWN.get(errno);
        return known != null ? known[0] : "errno " + errno;
    }

    /** E.g. {@code "No such file or directory (ENOENT)"}. */
    public static String describe(int errno) {
        String[] known = KNOWN.get(errno);
        return known != null ? known[1] + " (" + known[0] + ")" : "errno " + errno;
    }
}
