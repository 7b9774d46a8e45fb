/**
 * The files the two sides share on disk: where a session's registry entry and socket live
 * ({@link dev.limpet.workerapi.registry.WorkerPaths}), and the entry each worker writes and the
 * daemon reads to find its workers again after a restart.
 */
package dev.limpet.workerapi.registry;
