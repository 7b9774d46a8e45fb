/**
 * The caller's end of the worker link: the socket client that connects, proves the hello, sends
 * requests and frames and routes what comes back, and the peer-credential check on its socket.
 * It is machinery, not wire data, so it sits apart from {@code rpc}; it lives in the contract module
 * rather than the daemon because it has two callers, the daemon and the worker module's tests,
 * which drive a real worker through the same client the daemon uses.
 */
package dev.limpet.workerapi.link;
