package dev.limpet.vt;

/** Resize of both buffers, following xterm.js' Buffer.resize. */
final class Resizer {
    private Resizer() {
    }

    static void resize(Emulator t, int cols, int rows) {
        resizeBuffer(t.normal, cols, rows);
        resizeBuffer(t.alt, cols, rows);
        t.cols = cols;
        t.rows = rows;
        t.normal.setupTabStops(cols);
        t.alt.setupTabStops(cols);
    }

    private static void resizeBuffer(ScreenBuffer b, int newCols, int newRows) {
        Pen none = new Pen();
        LineRing lines = b.lines;
        int newMax = b.correctLength(newRows);
        if (newMax > lines.maxLength()) {
            lines.setMaxLength(newMax);
        }
        if (lines.length() > 0) {
            if (b.cols < newCols) {
                for (int i = 0; i < lines.length(); i++) {
                    lines.get(i).resize(newCols, none);
                }
            }
            int addToY = 0;
            if (b.rows < newRows) {
                for (int y = b.rows; y < newRows; y++) {
                    if (lines.length() < newRows + b.ybase) {
                        if (b.ybase > 0 && lines.length() <= b.ybase + b.y + addToY + 1) {
                            b.ybase--;
                            addToY++;
                        } else {
                            lines.push(Line.blank(newCols, 0, 0, 0, false));
                        }
                    }
                }
            } else {
                for (int y = b.rows; y > newRows; y--) {
                    if (lines.length() > newRows + b.ybase) {
                        if (lines.length() > b.ybase + b.y + 1) {
                            lines.pop();
                        } else {
                            b.ybase++;
                        }
                    }
                }
            }
            if (newMax < lines.maxLength()) {
                int amountToTrim = lines.length() - newMax;
                if (amountToTrim > 0) {
                    lines.trimStart(amountToTrim);
                    b.ybase = Math.max(b.ybase - amountToTrim, 0);
                    b.savedY = Math.max(b.savedY - amountToTrim, 0);
                }
                lines.setMaxLength(newMax);
            }
            b.x = Math.min(b.x, newCols - 1);
            b.y = Math.min(b.y, newRows - 1);
            if (addToY != 0) {
                b.y += addToY;
            }
            b.savedX = Math.min(b.savedX, newCols - 1);
            b.scrollTop = 0;
        }
        b.scrollBottom = newRows - 1;
        if (b.hasScrollback) {
            Reflow.reflow(b, newCols, newRows);
            if (b.cols > newCols) {
                for (int i = 0; i < lines.length(); i++) {
                    lines.get(i).resize(newCols, none);
                }
            }
        }
        b.cols = newCols;
        b.rows = newRows;
    }
}
