/**
 * Real PTYs through Java's foreign-function API: {@link dev.limpet.terminal.pty.PtyProcess#spawn}
 * opens a PTY and starts a program as the leader of a new session with the PTY as its controlling
 * terminal, so job control, Ctrl-C, SIGWINCH on resize and hang-up behave as in any terminal.
 *
 * <p>Linux with glibc ≥ 2.34 on x86_64 or aarch64. Reads, writes and waits block in native code:
 * run them on platform threads, never on virtual threads.
 */
package dev.limpet.terminal.pty;
