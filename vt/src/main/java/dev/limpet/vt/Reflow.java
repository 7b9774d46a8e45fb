package dev.limpet.vt;

final class Reflow {
    private Reflow() {
    }

    static void reflow(ScreenBuffer b, int newCols, int newRows) {
    }
}
