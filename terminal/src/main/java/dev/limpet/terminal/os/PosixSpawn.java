package dev.limpet.terminal.os;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Map;

/**
 * Starts a child as the leader of a new session whose controlling terminal is a PTY slave, with
 * glibc's {@code posix_spawn}. Internal to limpet-terminal.
 *
 * <p>Why these attributes: {@code POSIX_SPAWN_SETSID} makes the child a session leader without a
 * terminal; glibc applies it before the file actions, so opening the slave (without
 * {@code O_NOCTTY}) as fd 0 makes it the controlling terminal. A JVM blocks and ignores some
 * signals and children inherit both, so the mask is emptied and every disposition reset to
 * default. {@code closefrom(3)} keeps the daemon's descriptors (sockets, databases, other PTY
 * masters) out of the child even where the JDK opened them without {@code O_CLOEXEC}.
 */
public final class PosixSpawn {
    private static final MethodHandle ATTR_INIT = Libc.plainCall("posix_spawnattr_init", JAVA_INT, ADDRESS);
    private static final MethodHandle ATTR_DESTROY = Libc.plainCall("posix_spawnattr_destroy", JAVA_INT, ADDRESS);
    private static final MethodHandle ATTR_SETFLAGS = Libc.plainCall("posix_spawnattr_setflags", JAVA_INT, ADDRESS, JAVA_SHORT);
    private static final MethodHandle ATTR_SETSIGMASK = Libc.plainCall("posix_spawnattr_setsigmask", JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle ATTR_SETSIGDEFAULT = Libc.plainCall("posix_spawnattr_setsigdefault", JAVA_INT, ADDRESS, ADDRESS);
    private static final MethodHandle SIGEMPTYSET = Libc.plainCall("sigemptyset", JAVA_INT, ADDRESS);
    private static final MethodHandle SIGFILLSET = Libc.plainCall("sigfillset", JAVA_INT, ADDRESS);
    private static final MethodHandle ACTIONS_INIT = Libc.plainCall("posix_spawn_file_actions_init", JAVA_INT, ADDRESS);
    private static final MethodHandle ACTIONS_DESTROY = Libc.plainCall("posix_spawn_file_actions_destroy", JAVA_INT, ADDRESS);
    private static final MethodHandle ACTIONS_ADDOPEN =
            Libc.plainCall("posix_spawn_file_actions_addopen", JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT);
    private static final MethodHandle ACTIONS_ADDDUP2 = Libc.plainCall("posix_spawn_file_actions_adddup2", JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT);
    /** glibc ≥ 2.29. */
    private static final MethodHandle ACTIONS_ADDCHDIR = Libc.optionalPlainCall("posix_spawn_file_actions_addchdir_np", JAVA_INT, ADDRESS, ADDRESS).orElse(null);
    /** glibc ≥ 2.34. */
    private static final MethodHandle ACTIONS_ADDCLOSEFROM = Libc.optionalPlainCall("posix_spawn_file_actions_addclosefrom_np", JAVA_INT, ADDRESS, JAVA_INT).orElse(null);
    private static final MethodHandle SPAWN = Libc.plainCall("posix_spawn", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS);

    private PosixSpawn() {}

    /**
     * Spawns {@code executable} (a path, not searched in {@code PATH}) with {@code argv} and exactly
     * the environment {@code env}, in {@code cwd} (null: inherit), as a session leader whose fds 0–2
     * are the PTY slave at {@code slavePath}.
     *
     * @return the child's pid
     * @throws ErrnoException when any step fails; a failed {@code exec} is reported here too (glibc
     *     waits for the exec and reaps the failed child itself)
     */
    public static int spawnSessionLeader(String executable, List<String> argv, Map<String, String> env, String slavePath, String cwd)
            throws ErrnoException {
        if (ACTIONS_ADDCLOSEFROM == null || (cwd != null && ACTIONS_ADDCHDIR == null)) {
            throw new UnsupportedOperationException("glibc ≥ 2.34 is needed (posix_spawn_file_actions_addclosefrom_np, addchdir_np)");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(Libc.SPAWNATTR_SIZE, 16);
            MemorySegment actions = arena.allocate(Libc.FILE_ACTIONS_SIZE, 16);
            check("posix_spawnattr_init", call(ATTR_INIT, attr));
            try {
                check("posix_spawn_file_actions_init", call(ACTIONS_INIT, actions));
                try {
                    configureAttributes(arena, attr);
                    configureFileActions(arena, actions, slavePath, cwd);
                    MemorySegment pid = arena.allocate(JAVA_INT);
                    int rc = (int) SPAWN.invokeExact(pid, arena.allocateFrom(executable), actions, attr,
                            stringArray(arena, argv), stringArray(arena, environmentStrings(env)));
                    check("posix_spawn", rc);
                    return pid.get(JAVA_INT, 0);
                } finally {
                    call(ACTIONS_DESTROY, actions);
                }
            } finally {
                call(ATTR_DESTROY, attr);
            }
        } catch (ErrnoException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw Libc.unexpected(t);
        }
    }

    private static void configureAttributes(Arena arena, MemorySegment attr) throws Throwable {
        short flags = (short) (Libc.POSIX_SPAWN_SETSID | Libc.POSIX_SPAWN_SETSIGMASK | Libc.POSIX_SPAWN_SETSIGDEF);
        check("posix_spawnattr_setflags", (int) ATTR_SETFLAGS.invokeExact(attr, flags));
        MemorySegment noSignals = arena.allocate(Libc.SIGSET_SIZE, 16);
        call(SIGEMPTYSET, noSignals);
        check("posix_spawnattr_setsigmask", (int) ATTR_SETSIGMASK.invokeExact(attr, noSignals));
        MemorySegment allSignals = arena.allocate(Libc.SIGSET_SIZE, 16);
        call(SIGFILLSET, allSignals);
        check("posix_spawnattr_setsigdefault", (int) ATTR_SETSIGDEFAULT.invokeExact(attr, allSignals));
    }

    private static void configureFileActions(Arena arena, MemorySegment actions, String slavePath, String cwd) throws Throwable {
        check("posix_spawn_file_actions_addopen",
                (int) ACTIONS_ADDOPEN.invokeExact(actions, 0, arena.allocateFrom(slavePath), Libc.O_RDWR, 0));
        check("posix_spawn_file_actions_adddup2", (int) ACTIONS_ADDDUP2.invokeExact(actions, 0, 1));
        check("posix_spawn_file_actions_adddup2", (int) ACTIONS_ADDDUP2.invokeExact(actions, 0, 2));
        check("posix_spawn_file_actions_addclosefrom_np", (int) ACTIONS_ADDCLOSEFROM.invokeExact(actions, 3));
        if (cwd != null) {
            check("posix_spawn_file_actions_addchdir_np", (int) ACTIONS_ADDCHDIR.invokeExact(actions, arena.allocateFrom(cwd)));
        }
    }

    private static List<String> environmentStrings(Map<String, String> env) {
        return env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
    }

    /** A NULL-terminated {@code char *[]} of UTF-8 strings. */
    private static MemorySegment stringArray(Arena arena, List<String> strings) {
        MemorySegment array = arena.allocate(ADDRESS, strings.size() + 1L);
        for (int i = 0; i < strings.size(); i++) {
            array.setAtIndex(ADDRESS, i, arena.allocateFrom(strings.get(i)));
        }
        array.setAtIndex(ADDRESS, strings.size(), MemorySegment.NULL);
        return array;
    }

    private static int call(MethodHandle handle, MemorySegment arg) throws Throwable {
        return (int) handle.invokeExact(arg);
    }

    /** The posix_spawn family returns the error number instead of setting errno. */
    private static void check(String operation, int rc) throws ErrnoException {
        if (rc != 0) {
            throw new ErrnoException(operation, rc);
        }
    }
}
