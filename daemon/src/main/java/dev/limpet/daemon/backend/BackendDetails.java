package dev.limpet.daemon.backend;

/** Optional backend ability: a line for {@code limpet status} about the data plane (e.g. {@code tmux 3.3a}). */
public interface BackendDetails {
    String details();
}
