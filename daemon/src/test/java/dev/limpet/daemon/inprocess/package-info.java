/**
 * The whole daemon in the test's JVM ({@link dev.limpet.daemon.inprocess.DaemonHarness}), driven through
 * its real sockets, REST and WebSocket, as its clients drive it, with real PTYs and workers. The it
 * module runs the built jar as separate processes instead (kill -9, restarts, the CLI, the relay).
 */
package dev.limpet.daemon.inprocess;
