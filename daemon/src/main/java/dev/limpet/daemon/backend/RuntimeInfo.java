package dev.limpet.daemon.backend;

import dev.limpet.terminal.pty.ExitStatus;

/** Runtime facts the data plane is authoritative for. {@code exit} is null while running. */
public record RuntimeInfo(String sessionId, long pid, boolean running, ExitStatus exit, int cols, int rows, long endOffset) {}
