/**
 * The daemon↔worker wire, as data: the RPC's version window, method names and limits
 * ({@link dev.limpet.workerapi.rpc.WorkerRpc}), its records and their one codec, the error codes,
 * the hello's mutual proof and the launch description a worker reads on its standard input. Both
 * sides compile against this package and nothing else of each other, so a change to the wire is a
 * change here. The link's binary frames are protocol's {@code Frame}, the one frame codec of every
 * hop; this package only says which kinds the link carries and how large they may be.
 */
package dev.limpet.workerapi.rpc;
