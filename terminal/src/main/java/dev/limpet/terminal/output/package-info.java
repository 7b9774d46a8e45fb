/**
 * A session's output as one byte stream addressed by absolute offsets, held in a bounded ring
 * ({@link dev.limpet.terminal.output.OutputLog}): the basis of resume-with-{@code since} without
 * duplicates or gaps.
 */
package dev.limpet.terminal.output;
