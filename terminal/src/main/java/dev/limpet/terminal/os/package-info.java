/**
 * The native layer: {@link dev.limpet.terminal.os.Posix} for process-level calls other modules
 * need (liveness, signals, start times that tell a reused pid apart), and the internal glibc
 * bindings behind {@code dev.limpet.terminal.pty}. Every call here returns promptly (no blocking
 * waits except {@code Libc.waitpid}), so {@code Posix} is safe on virtual threads.
 */
package dev.limpet.terminal.os;
