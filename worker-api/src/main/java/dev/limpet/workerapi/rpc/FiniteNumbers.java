package dev.limpet.workerapi.rpc;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NumericNode;
import com.fasterxml.jackson.databind.node.ValueNode;

/**
 * The node factory of the worker RPC's mapper, whose params, results and event bodies are JSON
 * trees until a payload type reads them: a number no double can hold ({@code 1e400} reads as
 * Infinity) is refused while the message is read, instead of becoming a value that JSON cannot
 * carry back (Jackson would write it as the string {@code "Infinity"}). Thrown as an
 * {@link IllegalArgumentException}, which Jackson wraps as a mapping error at the field that held
 * it: {@link WorkerCodec#decode} answers {@code bad_request}. (Client messages need no such
 * factory: they are read into typed records, where such a number fails its field's coercion.)
 */
final class FiniteNumbers extends JsonNodeFactory {
    static final FiniteNumbers INSTANCE = new FiniteNumbers();

    private FiniteNumbers() {
        super(false);
    }

    @Override
    public NumericNode numberNode(double v) {
        return super.numberNode(requireFinite(v));
    }

    @Override
    public ValueNode numberNode(Double value) {
        return value == null ? nullNode() : numberNode(value.doubleValue());
    }

    @Override
    public NumericNode numberNode(float v) {
        return super.numberNode((float) requireFinite(v));
    }

    @Override
    public ValueNode numberNode(Float value) {
        return value == null ? nullNode() : numberNode(value.floatValue());
    }

    private static double requireFinite(double v) {
        if (!Double.isFinite(v)) {
            throw new IllegalArgumentException("a number out of range (" + v + ")");
        }
        return v;
    }
}
