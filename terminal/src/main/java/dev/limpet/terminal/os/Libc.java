package dev.limpet.terminal.os;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Optional;

/**
 * Thin FFM bindings to the glibc functions this module needs. Internal to limpet-terminal: other
 * modules use {@link Posix} and {@code dev.limpet.terminal.pty}.
 *
 * <p>Calls that report failure through {@code errno} capture it with
 * {@link Linker.Option#captureCallState}, so a later JVM-internal call cannot overwrite it. Hot
 * calls ({@link #read}, {@link #write}, {@link #poll}) return {@code -errno} instead of throwing,
 * because {@code EAGAIN} and {@code EINTR} are ordinary there.
 */
public final class Libc {
    public static final int O_RDWR = 0x2;
    public static final int O_NOCTTY = 0x100;
    public static final int O_NONBLOCK = 0x800;
    public static final int O_CLOEXEC = 0x80000;
    public static final int F_GETFD = 1;
    public static final int F_SETFD = 2;
    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int FD_CLOEXEC = 1;
    public static final long TIOCSWINSZ = 0x5414;
    public static final long TIOCGWINSZ = 0x5413;
    public static final long TCGETS = 0x5401;
    public static final long TCSETS = 0x5402;
    /** c_iflag bit: the line discipline treats input as UTF-8 (erase removes a whole character). */
    public static final int IUTF8 = 0x4000;
    public static final short POLLIN = 0x1;
    public static final short POLLOUT = 0x4;
    public static final short POLLERR = 0x8;
    public static final short POLLHUP = 0x10;
    public static final short POSIX_SPAWN_SETSIGDEF = 0x04;
    public static final short POSIX_SPAWN_SETSIGMASK = 0x08;
    public static final short POSIX_SPAWN_SETSID = 0x80;
    public static final int SC_CLK_TCK = 2;

    /** Generous upper bounds of glibc's opaque types (336, 80 and 128 bytes on x86_64). */
    public static final long SPAWNATTR_SIZE = 1024;
    public static final long FILE_ACTIONS_SIZE = 512;
    public static final long SIGSET_SIZE = 256;

    static {
        LinuxPlatform.requireSupported();
    }

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle CAPTURED_ERRNO =
            CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    /** One capture buffer per thread: PTY I/O runs on a few long-lived platform threads. */
    private static final ThreadLocal<MemorySegment> CAPTURE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    // Each group of calls is bound on first use (a holder class per group): binding a downcall spins
    // classes at run time, and a process should pay only for what it calls. The daemon signals and
    // waits on nothing at start; a worker binds the PTY and I/O calls once, in its warm-up.

    /** Opening and configuring a PTY master. */
    private static final class Pty {
        static final MethodHandle POSIX_OPENPT = errnoCall("posix_openpt", JAVA_INT, JAVA_INT);
        static final MethodHandle GRANTPT = errnoCall("grantpt", JAVA_INT, JAVA_INT);
        static final MethodHandle UNLOCKPT = errnoCall("unlockpt", JAVA_INT, JAVA_INT);
        static final MethodHandle PTSNAME_R = plainCall("ptsname_r", JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG);
        static final MethodHandle IOCTL = variadicErrnoCall("ioctl", JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS);
    }

    /** File descriptor I/O. */
    private static final class Io {
        static final MethodHandle FCNTL = variadicErrnoCall("fcntl", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
        static final MethodHandle READ = errnoCall("read", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG);
        static final MethodHandle WRITE = errnoCall("write", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG);
        static final MethodHandle CLOSE = errnoCall("close", JAVA_INT, JAVA_INT);
        static final MethodHandle POLL = errnoCall("poll", JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
        static final MethodHandle EVENTFD = errnoCall("eventfd", JAVA_INT, JAVA_INT, JAVA_INT);
    }

    /** Signals, children and this process. */
    private static final class Processes {
        static final MethodHandle KILL = errnoCall("kill", JAVA_INT, JAVA_INT, JAVA_INT);
        static final MethodHandle WAITPID = errnoCall("waitpid", JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
        static final MethodHandle SETSID = errnoCall("setsid", JAVA_INT);
        static final MethodHandle GETUID = plainCall("getuid", JAVA_INT);
        static final MethodHandle GETPID = plainCall("getpid", JAVA_INT);
        static final MethodHandle SYSCONF = plainCall("sysconf", JAVA_LONG, JAVA_INT);
    }

    private Libc() {}

    // --- PTY master ---

    public static int posixOpenpt(int flags) throws ErrnoException {
        return check("posix_openpt", callInt(Pty.POSIX_OPENPT, flags));
    }

    public static void grantpt(int fd) throws ErrnoException {
        check("grantpt", callInt(Pty.GRANTPT, fd));
    }

    public static void unlockpt(int fd) throws ErrnoException {
        check("unlockpt", callInt(Pty.UNLOCKPT, fd));
    }

    /** The slave device path of master {@code fd}, e.g. {@code /dev/pts/3}. */
    public static String ptsname(int fd) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(256);
            int rc;
            try {
                rc = (int) Pty.PTSNAME_R.invokeExact(fd, buf, buf.byteSize());
            } catch (Throwable t) {
                throw unexpected(t);
            }
            if (rc != 0) {
                throw new ErrnoException("ptsname_r", rc);
            }
            return buf.getString(0);
        }
    }

    /** {@code fcntl(fd, cmd, arg)}; returns the call's result. */
    public static int fcntl(int fd, int cmd, int arg) throws ErrnoException {
        MemorySegment capture = CAPTURE.get();
        int rc;
        try {
            rc = (int) Io.FCNTL.invokeExact(capture, fd, cmd, arg);
        } catch (Throwable t) {
            throw unexpected(t);
        }
        return check("fcntl", rc, capture);
    }

    /** {@code ioctl(fd, TIOCSWINSZ)}: struct winsize is four unsigned shorts (rows, cols, xpixel, ypixel). */
    public static void setWindowSize(int fd, int cols, int rows) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment winsize = arena.allocate(8);
            winsize.set(JAVA_SHORT, 0, (short) rows);
            winsize.set(JAVA_SHORT, 2, (short) cols);
            ioctl(fd, TIOCSWINSZ, winsize, "ioctl(TIOCSWINSZ)");
        }
    }

    /** {@code ioctl(fd, TIOCGWINSZ)}; returns {@code {cols, rows}}. */
    public static int[] windowSize(int fd) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment winsize = arena.allocate(8);
            ioctl(fd, TIOCGWINSZ, winsize, "ioctl(TIOCGWINSZ)");
            return new int[] {Short.toUnsignedInt(winsize.get(JAVA_SHORT, 2)), Short.toUnsignedInt(winsize.get(JAVA_SHORT, 0))};
        }
    }

    /**
     * Sets {@code IUTF8} in the terminal's input flags. On a PTY master the termios ioctls act on
     * the slave side, so this configures the child's terminal before it starts. The kernel's
     * {@code struct termios} starts with {@code c_iflag}; 64 bytes cover it on every Linux ABI.
     */
    public static void enableUtf8Input(int fd) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment termios = arena.allocate(64, 8);
            ioctl(fd, TCGETS, termios, "ioctl(TCGETS)");
            termios.set(JAVA_INT, 0, termios.get(JAVA_INT, 0) | IUTF8);
            ioctl(fd, TCSETS, termios, "ioctl(TCSETS)");
        }
    }

    private static void ioctl(int fd, long request, MemorySegment arg, String operation) throws ErrnoException {
        MemorySegment capture = CAPTURE.get();
        int rc;
        try {
            rc = (int) Pty.IOCTL.invokeExact(capture, fd, request, arg);
        } catch (Throwable t) {
            throw unexpected(t);
        }
        check(operation, rc, capture);
    }

    // --- plain fd I/O: results are byte counts, or -errno ---

    public static long read(int fd, MemorySegment buf, long len) {
        MemorySegment capture = CAPTURE.get();
        try {
            long n = (long) Io.READ.invokeExact(capture, fd, buf, len);
            return n >= 0 ? n : -errno(capture);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static long write(int fd, MemorySegment buf, long len) {
        MemorySegment capture = CAPTURE.get();
        try {
            long n = (long) Io.WRITE.invokeExact(capture, fd, buf, len);
            return n >= 0 ? n : -errno(capture);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code poll(fds, nfds, timeoutMillis)}: {@code fds} holds {@code struct pollfd {int fd; short events; short revents;}}. */
    public static int poll(MemorySegment fds, int nfds, int timeoutMillis) {
        MemorySegment capture = CAPTURE.get();
        try {
            int n = (int) Io.POLL.invokeExact(capture, fds, (long) nfds, timeoutMillis);
            return n >= 0 ? n : -errno(capture);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static void close(int fd) throws ErrnoException {
        check("close(" + fd + ")", callInt(Io.CLOSE, fd));
    }

    public static int eventfd(int initialValue, int flags) throws ErrnoException {
        return check("eventfd", callInt(Io.EVENTFD, initialValue, flags));
    }

    // --- processes ---

    /** {@code kill(pid, signal)}: returns 0, or the errno on failure. */
    public static int kill(int pid, int signal) {
        MemorySegment capture = CAPTURE.get();
        try {
            int rc = (int) Processes.KILL.invokeExact(capture, pid, signal);
            return rc == 0 ? 0 : errno(capture);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** Blocking {@code waitpid(pid, &status, 0)}, retried on EINTR; returns the raw wait status. */
    public static int waitpid(int pid) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment status = arena.allocate(JAVA_INT);
            MemorySegment capture = CAPTURE.get();
            while (true) {
                int rc;
                try {
                    rc = (int) Processes.WAITPID.invokeExact(capture, pid, status, 0);
                } catch (Throwable t) {
                    throw unexpected(t);
                }
                if (rc == pid) {
                    return status.get(JAVA_INT, 0);
                }
                int errno = errno(capture);
                if (errno != Errno.EINTR) {
                    throw new ErrnoException("waitpid(" + pid + ")", errno);
                }
            }
        }
    }

    public static int setsid() throws ErrnoException {
        return check("setsid", callInt(Processes.SETSID));
    }

    public static int getuid() {
        try {
            return (int) Processes.GETUID.invokeExact();
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static int getpid() {
        try {
            return (int) Processes.GETPID.invokeExact();
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static long sysconf(int name) {
        try {
            return (long) Processes.SYSCONF.invokeExact(name);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // --- helpers shared with the posix_spawn bindings ---

    static MethodHandle plainCall(String name, MemoryLayout result, MemoryLayout... args) {
        return LINKER.downcallHandle(symbol(name), FunctionDescriptor.of(result, args));
    }

    static Optional<MethodHandle> optionalPlainCall(String name, MemoryLayout result, MemoryLayout... args) {
        return LINKER.defaultLookup().find(name).map(s -> LINKER.downcallHandle(s, FunctionDescriptor.of(result, args)));
    }

    static MethodHandle errnoCall(String name, MemoryLayout result, MemoryLayout... args) {
        FunctionDescriptor descriptor = args.length == 0 ? FunctionDescriptor.of(result) : FunctionDescriptor.of(result, args);
        return LINKER.downcallHandle(symbol(name), descriptor, Linker.Option.captureCallState("errno"));
    }

    /** For C variadic functions whose fixed part is the first two arguments. */
    private static MethodHandle variadicErrnoCall(String name, MemoryLayout result, MemoryLayout... args) {
        return LINKER.downcallHandle(symbol(name), FunctionDescriptor.of(result, args),
                Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno"));
    }

    private static MemorySegment symbol(String name) {
        return LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsupportedOperationException("libc has no " + name + " (" + LinuxPlatform.unsupportedMessage() + ")"));
    }

    /** Calls an errno-capturing {@code int f(int...)}; returns the result, or {@code -errno} when it is -1. */
    private static int callInt(MethodHandle handle, int... args) {
        MemorySegment capture = CAPTURE.get();
        int rc;
        try {
            rc = switch (args.length) {
                case 0 -> (int) handle.invokeExact(capture);
                case 1 -> (int) handle.invokeExact(capture, args[0]);
                case 2 -> (int) handle.invokeExact(capture, args[0], args[1]);
                default -> throw new IllegalArgumentException("arity " + args.length);
            };
        } catch (Throwable t) {
            throw unexpected(t);
        }
        return rc == -1 ? -errno(capture) : rc;
    }

    private static int check(String operation, int resultOrMinusErrno) throws ErrnoException {
        if (resultOrMinusErrno < 0) {
            throw new ErrnoException(operation, -resultOrMinusErrno);
        }
        return resultOrMinusErrno;
    }

    private static int check(String operation, int rc, MemorySegment capture) throws ErrnoException {
        if (rc == -1) {
            throw new ErrnoException(operation, errno(capture));
        }
        return rc;
    }

    /** This thread's buffer for the errno of a call bound with {@link #errnoCall}. */
    static MemorySegment capture() {
        return CAPTURE.get();
    }

    /** {@code rc}, or the captured errno as an exception when {@code rc} is -1. */
    static int checkCall(String operation, int rc) throws ErrnoException {
        return check(operation, rc, CAPTURE.get());
    }

    private static int errno(MemorySegment capture) {
        return (int) CAPTURED_ERRNO.get(capture, 0L);
    }

    static RuntimeException unexpected(Throwable t) {
        if (t instanceof RuntimeException re) {
            return re;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("native call failed", t);
    }
}
