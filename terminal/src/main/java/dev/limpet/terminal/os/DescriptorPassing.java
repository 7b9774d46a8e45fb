package dev.limpet.terminal.os;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Handing an open descriptor from one of our processes to another over a Unix socket
 * ({@code SCM_RIGHTS}), which the JDK's channels cannot do. The receiver listens on a path in a
 * directory only its user can enter; the sender connects, checks that the listener runs as its
 * own user, and sends one byte carrying the descriptor; the receiver checks who sent it
 * ({@code SO_PEERCRED}). Every socket and every received descriptor is close-on-exec, so none
 * leaks into a program either side starts later.
 *
 * <p>Threads: each call stands alone; a listener is used by one thread at a time.
 */
public final class DescriptorPassing {
    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM = 1;
    private static final int SOCK_NONBLOCK = 0x800;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_PEERCRED = 17;
    private static final int SCM_RIGHTS = 1;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final int MSG_CTRUNC = 0x8;
    private static final int MSG_CMSG_CLOEXEC = 0x40000000;
    /** {@code sizeof(sun_path)}, with its terminating NUL. */
    private static final int MAX_PATH_BYTES = 108;
    private static final long SOCKADDR_UN_SIZE = 2 + MAX_PATH_BYTES;
    /** {@code struct msghdr} on x86_64 and aarch64: name, namelen, iov, iovlen, control, controllen, flags. */
    private static final long MSGHDR_SIZE = 56;
    /** {@code CMSG_SPACE(sizeof(int))}: a header of 16 bytes and one descriptor, padded to 8. */
    private static final long CMSG_SPACE_ONE_FD = 24;
    private static final long CMSG_LEN_ONE_FD = 20;

    /** Who is at the other end of a connected Unix socket. */
    public record Peer(int pid, int uid) {}

    private DescriptorPassing() {}

    private static final class Calls {
        static final MethodHandle SOCKET = Libc.errnoCall("socket", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
        static final MethodHandle BIND = Libc.errnoCall("bind", JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
        static final MethodHandle LISTEN = Libc.errnoCall("listen", JAVA_INT, JAVA_INT, JAVA_INT);
        static final MethodHandle CONNECT = Libc.errnoCall("connect", JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
        static final MethodHandle ACCEPT4 = Libc.errnoCall("accept4", JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
        static final MethodHandle GETSOCKOPT = Libc.errnoCall("getsockopt", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle SENDMSG = Libc.errnoCall("sendmsg", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT);
        static final MethodHandle RECVMSG = Libc.errnoCall("recvmsg", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT);
    }

    /** A non-blocking listening socket bound to {@code path} (which must not exist); close it with {@link Libc#close}. */
    public static int listen(Path path) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment address = address(arena, path);
            int fd = socket(SOCK_NONBLOCK);
            try {
                call("bind " + path, () -> (int) Calls.BIND.invokeExact(Libc.capture(), fd, address, (int) SOCKADDR_UN_SIZE));
                call("listen " + path, () -> (int) Calls.LISTEN.invokeExact(Libc.capture(), fd, 4));
                return fd;
            } catch (IOException | RuntimeException e) {
                closeQuietly(fd);
                throw e;
            }
        }
    }

    /** Closes a listener of {@link #listen} and removes its path. */
    public static void closeListener(int listener, Path path) throws IOException {
        closeQuietly(listener);
        Files.deleteIfExists(path);
    }

    /**
     * Takes the next connection on {@code listener} and the descriptor its peer sends, waiting up to
     * {@code waitMillis} in all. The descriptor is close-on-exec and comes with who sent it.
     *
     * @throws IOException when nothing came in time, or the peer sent no descriptor
     */
    public static Received receive(int listener, int waitMillis) throws IOException {
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        awaitReadable(listener, deadline, "a connection");
        int socket = call("accept", () -> (int) Calls.ACCEPT4.invokeExact(Libc.capture(), listener, MemorySegment.NULL,
                MemorySegment.NULL, SOCK_CLOEXEC | SOCK_NONBLOCK));
        try (Arena arena = Arena.ofConfined()) {
            Peer peer = peer(socket, arena);
            awaitReadable(socket, deadline, "the descriptor");
            MemorySegment data = arena.allocate(1);
            MemorySegment control = arena.allocate(CMSG_SPACE_ONE_FD, 8);
            MemorySegment message = message(arena, data, control);
            call("recvmsg", () -> (int) (long) Calls.RECVMSG.invokeExact(Libc.capture(), socket, message, MSG_CMSG_CLOEXEC));
            int fd = control.get(JAVA_LONG, 0) == CMSG_LEN_ONE_FD && control.get(JAVA_INT, 8) == SOL_SOCKET
                    && control.get(JAVA_INT, 12) == SCM_RIGHTS ? control.get(JAVA_INT, 16) : -1;
            if ((message.get(JAVA_INT, 48) & MSG_CTRUNC) != 0 || fd < 0) {
                closeQuietly(fd);
                throw new IOException("the peer (pid " + peer.pid() + ") sent no descriptor, or more than one");
            }
            return new Received(fd, peer);
        } finally {
            closeQuietly(socket);
        }
    }

    /** A descriptor received, and the process that sent it. */
    public record Received(int fd, Peer from) {}

    /**
     * Sends {@code fd} to the process listening on {@code path}, which must run as this process's
     * user. Never waits: a listener whose queue is full is an error.
     */
    public static void send(Path path, int fd) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment address = address(arena, path);
            int socket = socket(SOCK_NONBLOCK);
            try {
                call("connect " + path, () -> (int) Calls.CONNECT.invokeExact(Libc.capture(), socket, address, (int) SOCKADDR_UN_SIZE));
                Peer listener = peer(socket, arena);
                if (listener.uid() != Libc.getuid()) {
                    throw new IOException(path + " is listened on by uid " + listener.uid() + ", not ours");
                }
                MemorySegment data = arena.allocate(1);
                MemorySegment control = arena.allocate(CMSG_SPACE_ONE_FD, 8);
                control.set(JAVA_LONG, 0, CMSG_LEN_ONE_FD);
                control.set(JAVA_INT, 8, SOL_SOCKET);
                control.set(JAVA_INT, 12, SCM_RIGHTS);
                control.set(JAVA_INT, 16, fd);
                MemorySegment message = message(arena, data, control);
                if (call("sendmsg to " + path, () -> (int) (long) Calls.SENDMSG.invokeExact(Libc.capture(), socket, message, MSG_NOSIGNAL)) != 1) {
                    throw new IOException("sendmsg to " + path + " sent no byte");
                }
            } finally {
                closeQuietly(socket);
            }
        }
    }

    /** A downcall bound with errno captured, returning -1 on failure. */
    private interface Downcall {
        int invoke() throws Throwable;
    }

    /** Runs {@code c}: its result, or the errno it left as an exception. */
    private static int call(String operation, Downcall c) throws ErrnoException {
        int rc;
        try {
            rc = c.invoke();
        } catch (Throwable t) {
            throw Libc.unexpected(t);
        }
        return Libc.checkCall(operation, rc);
    }

    private static int socket(int flags) throws IOException {
        return call("socket", () -> (int) Calls.SOCKET.invokeExact(Libc.capture(), AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | flags, 0));
    }

    private static Peer peer(int socket, Arena arena) throws IOException {
        MemorySegment cred = arena.allocate(12, 4);
        MemorySegment len = arena.allocateFrom(JAVA_INT, 12);
        call("getsockopt SO_PEERCRED", () -> (int) Calls.GETSOCKOPT.invokeExact(Libc.capture(), socket, SOL_SOCKET, SO_PEERCRED, cred, len));
        return new Peer(cred.get(JAVA_INT, 0), cred.get(JAVA_INT, 4));
    }

    private static MemorySegment address(Arena arena, Path path) throws IOException {
        byte[] bytes = path.toString().getBytes(StandardCharsets.UTF_8);
        if (bytes.length >= MAX_PATH_BYTES) {
            throw new IOException("socket path is longer than " + (MAX_PATH_BYTES - 1) + " bytes: " + path);
        }
        MemorySegment a = arena.allocate(SOCKADDR_UN_SIZE, 2);
        a.set(JAVA_SHORT, 0, (short) AF_UNIX);
        MemorySegment.copy(bytes, 0, a, JAVA_BYTE, 2, bytes.length);
        return a;
    }

    /** A {@code struct msghdr} of one byte of data and room for one descriptor. */
    private static MemorySegment message(Arena arena, MemorySegment data, MemorySegment control) {
        MemorySegment iov = arena.allocate(16, 8);
        iov.set(ADDRESS, 0, data);
        iov.set(JAVA_LONG, 8, data.byteSize());
        MemorySegment m = arena.allocate(MSGHDR_SIZE, 8);
        m.set(ADDRESS, 16, iov);
        m.set(JAVA_LONG, 24, 1L);
        m.set(ADDRESS, 32, control);
        m.set(JAVA_LONG, 40, control.byteSize());
        return m;
    }

    private static void awaitReadable(int fd, long deadlineNanos, String what) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollFd = arena.allocate(8, 4);
            while (true) {
                long left = (deadlineNanos - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    throw new IOException("no " + what + " came in time");
                }
                pollFd.set(JAVA_INT, 0, fd);
                pollFd.set(JAVA_SHORT, 4, Libc.POLLIN);
                pollFd.set(JAVA_SHORT, 6, (short) 0);
                int n = Libc.poll(pollFd, 1, (int) Math.min(left, Integer.MAX_VALUE));
                if (n > 0) {
                    return;
                }
                if (n < 0 && -n != Errno.EINTR) {
                    throw new ErrnoException("poll", -n);
                }
            }
        }
    }

    private static void closeQuietly(int fd) {
        if (fd < 0) {
            return;
        }
        try {
            Libc.close(fd);
        } catch (ErrnoException e) {
            // released anyway on Linux
        }
    }
}
