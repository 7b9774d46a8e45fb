package dev.limpet.vt;

/**
 * A bounded circular list of lines (xterm.js' CircularList): scrollback plus screen. Appending at
 * the end when full drops the oldest line in O(1), so scrolling costs the same whatever the
 * scrollback size.
 */
final class LineRing {
    private Line[] array;
    /** Index of the first line in {@link #array}, kept unreduced where xterm.js does (see #setAt). */
    private long start;
    private int length;

    LineRing(int maxLength) {
        array = new Line[maxLength];
    }

    int maxLength() {
        return array.length;
    }

    void setMaxLength(int newMax) {
        if (newMax == array.length) {
            return;
        }
        Line[] a = new Line[newMax];
        for (int i = 0; i < Math.min(newMax, length); i++) {
            a[i] = get(i);
        }
        array = a;
        start = 0;
        length = Math.min(length, newMax);
    }

    int length() {
        return length;
    }

    void setLength(int n) {
        if (n > length) {
            for (int i = length; i < n; i++) {
                array[idx(i)] = null;
            }
        }
        length = n;
    }

    boolean isFull() {
        return length == array.length;
    }

    Line get(int i) {
        return array[idx(i)];
    }

    void set(int i, Line l) {
        array[idx(i)] = l;
    }

    void push(Line l) {
        array[idx(length)] = l;
        if (length == array.length) {
            start = (start + 1) % array.length;
        } else {
            length++;
        }
    }

    /** When full: rotates the oldest line to the end and returns it for reuse. */
    Line recycle() {
        start = (start + 1) % array.length;
        return array[idx(length - 1)];
    }

    Line pop() {
        return array[idx(--length)];
    }

    /** Removes {@code count} lines at {@code at}, then inserts {@code items} there. */
    void splice(int at, int count, Line... items) {
        if (count > 0) {
            for (int i = at; i < length - count; i++) {
                array[idx(i)] = array[idx(i + count)];
            }
            length -= count;
        }
        for (int i = length - 1; i >= at; i--) {
            array[idx(i + items.length)] = array[idx(i)];
        }
        for (int i = 0; i < items.length; i++) {
            array[idx(at + i)] = items[i];
        }
        if (length + items.length > array.length) {
            int trim = length + items.length - array.length;
            start += trim;
            length = array.length;
        } else {
            length += items.length;
        }
    }

    void trimStart(int count) {
        count = Math.min(count, length);
        start += count;
        length -= count;
    }

    void shiftElements(int from, int count, int offset) {
        if (count <= 0) {
            return;
        }
        if (offset > 0) {
            for (int i = count - 1; i >= 0; i--) {
                set(from + i + offset, get(from + i));
            }
            int expand = from + count + offset - length;
            if (expand > 0) {
                length += expand;
                while (length > array.length) {
                    length--;
                    start++;
                }
            }
        } else {
            for (int i = 0; i < count; i++) {
                set(from + i + offset, get(from + i));
            }
        }
    }

    /** The array slot line {@code i} maps to even past the end (xterm.js' arithmetic); may be null. */
    Line getCyclic(int i) {
        return start + i >= 0 ? array[(int) ((start + i) % array.length)] : null;
    }

    /**
     * Sets line {@code i} where {@code i} may be negative, with xterm.js' arithmetic: a negative
     * index still lands in the array (on the newest lines) while the unreduced start allows it.
     */
    void setAt(int i, Line l) {
        if (start + i >= 0) {
            array[(int) ((start + i) % array.length)] = l;
        }
    }

    private int idx(int i) {
        long r = start + i;
        int n = array.length;
        return r < n ? (int) r : (int) (r % n);
    }
}
