package dev.limpet.vt;

/**
 * CSI/DCS parameters with colon sub-parameters, as collected by {@link Parser}. Empty parameters
 * are 0 (zero default mode), empty sub-parameters are -1. At most 32 parameters and 32
 * sub-parameters are kept; values saturate at {@link Integer#MAX_VALUE}.
 */
final class Params {
    static final int MAX = 32;
    final int[] values = new int[MAX];
    private final int[] sub = new int[MAX];
    /** per parameter: start of its sub-parameters << 8 | end. */
    private final int[] subIdx = new int[MAX];
    int length;
    private int subLength;
    private boolean rejectDigits;
    private boolean rejectSubDigits;
    private boolean digitIsSub;

    void reset() {
        length = 0;
        subLength = 0;
        rejectDigits = false;
        rejectSubDigits = false;
        digitIsSub = false;
    }

    void addParam(int value) {
        digitIsSub = false;
        if (length >= MAX) {
            rejectDigits = true;
            return;
        }
        subIdx[length] = subLength << 8 | subLength;
        values[length++] = value;
    }

    void addSubParam(int value) {
        digitIsSub = true;
        if (length == 0) {
            return;
        }
        if (rejectDigits || subLength >= MAX) {
            rejectSubDigits = true;
            return;
        }
        sub[subLength++] = value;
        subIdx[length - 1]++;
    }

    void addDigit(int digit) {
        int len = digitIsSub ? subLength : length;
        if (rejectDigits || len == 0 || (digitIsSub && rejectSubDigits)) {
            return;
        }
        int[] store = digitIsSub ? sub : values;
        int cur = store[len - 1];
        store[len - 1] = cur == -1 ? digit : (int) Math.min(cur * 10L + digit, Integer.MAX_VALUE);
    }

    /** Parameter {@code i}, or 0 when absent. */
    int get(int i) {
        return i < length ? values[i] : 0;
    }

    boolean hasSub(int i) {
        return (subIdx[i] & 0xFF) - (subIdx[i] >> 8) > 0;
    }

    int subCount(int i) {
        return (subIdx[i] & 0xFF) - (subIdx[i] >> 8);
    }

    int sub(int i, int j) {
        return sub[(subIdx[i] >> 8) + j];
    }
}
