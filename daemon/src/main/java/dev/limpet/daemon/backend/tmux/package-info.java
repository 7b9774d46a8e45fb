/**
 * The tmux backend: every session is a tmux session on a private server
 * ({@code tmux -S <data_root>/tmux/limpet.sock}) started with a generated config; the daemon reads
 * and drives each one through a control-mode client ({@code tmux -C attach}) and keeps the ring and
 * screen model itself. Sessions survive the daemon (tmux holds the PTYs); a checkpoint file and a
 * health machine track them across restarts.
 */
package dev.limpet.daemon.backend.tmux;
