package dev.limpet.vt;

import java.util.ArrayList;
import java.util.List;

/**
 * Rewraps soft-wrapped lines of the normal buffer to a new width, as xterm.js does on resize
 * (its BufferReflow, with reflowCursorLine off: the wrapped group holding the cursor is left
 * alone). Lines only wrapped by autowrap are joined or split; hard line breaks stay.
 */
final class Reflow {
    private Reflow() {
    }

    static void reflow(ScreenBuffer b, int newCols, int newRows) {
        if (b.cols == newCols) {
            return;
        }
        if (newCols > b.cols) {
            larger(b, newCols, newRows);
        } else {
            smaller(b, newCols, newRows);
        }
    }

    private static void larger(ScreenBuffer b, int newCols, int newRows) {
        LineRing lines = b.lines;
        int oldCols = b.cols;
        int cursorY = b.ybase + b.y;
        List<int[]> toRemove = new ArrayList<>();
        Pen none = new Pen();
        for (int y = 0; y < lines.length() - 1; y++) {
            int i = y;
            Line nextLine = lines.get(++i);
            if (!nextLine.wrapped) {
                continue;
            }
            List<Line> wrapped = new ArrayList<>();
            wrapped.add(lines.get(y));
            while (i < lines.length() && nextLine.wrapped) {
                wrapped.add(nextLine);
                nextLine = ++i < lines.length() ? lines.get(i) : null;
            }
            if (cursorY >= y && cursorY < i) {
                y += wrapped.size() - 1;
                continue;
            }
            int destLine = 0;
            int destCol = trimmedLength(wrapped, destLine, oldCols);
            int srcLine = 1;
            int srcCol = 0;
            while (srcLine < wrapped.size()) {
                int srcTrimmed = trimmedLength(wrapped, srcLine, oldCols);
                int n = Math.min(srcTrimmed - srcCol, newCols - destCol);
                wrapped.get(destLine).copyCellsFrom(wrapped.get(srcLine), srcCol, destCol, n, false);
                destCol += n;
                if (destCol == newCols) {
                    destLine++;
                    destCol = 0;
                }
                srcCol += n;
                if (srcCol == srcTrimmed) {
                    srcLine++;
                    srcCol = 0;
                }
                if (destCol == 0 && destLine != 0 && wrapped.get(destLine - 1).width(newCols - 1) == 2) {
                    wrapped.get(destLine).copyCellsFrom(wrapped.get(destLine - 1), newCols - 1, destCol++, 1, false);
                    wrapped.get(destLine - 1).set(newCols - 1, 1 << Attr.WIDTH_SHIFT, 0, 0, 0, null);
                }
            }
            wrapped.get(destLine).replaceCells(destCol, newCols, none, false);
            int countToRemove = 0;
            for (int k = wrapped.size() - 1; k > 0; k--) {
                if (k > destLine || wrapped.get(k).trimmedLength() == 0) {
                    countToRemove++;
                } else {
                    break;
                }
            }
            if (countToRemove > 0) {
                toRemove.add(new int[] {y + wrapped.size() - countToRemove, countToRemove});
            }
            y += wrapped.size() - 1;
        }
        if (toRemove.isEmpty()) {
            return;
        }
        List<Line> layout = new ArrayList<>();
        int next = 0;
        int removed = 0;
        for (int i = 0; i < lines.length(); i++) {
            if (next < toRemove.size() && toRemove.get(next)[0] == i) {
                int count = toRemove.get(next)[1];
                i += count - 1;
                removed += count;
                next++;
            } else {
                layout.add(lines.get(i));
            }
        }
        for (int i = 0; i < layout.size(); i++) {
            lines.set(i, layout.get(i));
        }
        lines.setLength(layout.size());
        for (int k = removed; k > 0; k--) {
            if (b.ybase == 0) {
                if (b.y > 0) {
                    b.y--;
                }
                if (lines.length() < newRows) {
                    lines.push(Line.blank(newCols, 0, 0, 0, false));
                }
            } else {
                b.ybase--;
            }
        }
        b.savedY = Math.max(b.savedY - removed, 0);
    }

    private static void smaller(ScreenBuffer b, int newCols, int newRows) {
        LineRing lines = b.lines;
        int oldCols = b.cols;
        List<Object[]> toInsert = new ArrayList<>();
        int countToInsert = 0;
        for (int y = lines.length() - 1; y >= 0; y--) {
            Line nextLine = lines.get(y);
            if (nextLine == null || !nextLine.wrapped && nextLine.trimmedLength() <= newCols) {
                continue;
            }
            List<Line> wrapped = new ArrayList<>();
            wrapped.add(nextLine);
            while (nextLine.wrapped && y > 0) {
                nextLine = lines.get(--y);
                wrapped.addFirst(nextLine);
            }
            int cursorY = b.ybase + b.y;
            if (cursorY >= y && cursorY < y + wrapped.size()) {
                continue;
            }
            int lastLineLength = wrapped.getLast().trimmedLength();
            int[] destLengths = newLineLengths(wrapped, oldCols, newCols);
            int linesToAdd = destLengths.length - wrapped.size();
            int trimmed;
            if (b.ybase == 0 && b.y != lines.length() - 1) {
                trimmed = Math.max(0, b.y - lines.maxLength() + linesToAdd);
            } else {
                trimmed = Math.max(0, lines.length() - lines.maxLength() + linesToAdd);
            }
            List<Line> newLines = new ArrayList<>();
            for (int i = 0; i < linesToAdd; i++) {
                newLines.add(Line.blank(newCols, 0, 0, 0, true));
            }
            if (!newLines.isEmpty()) {
                toInsert.add(new Object[] {y + wrapped.size() + countToInsert, newLines});
                countToInsert += newLines.size();
            }
            wrapped.addAll(newLines);
            int destLine = destLengths.length - 1;
            int destCol = destLengths[destLine];
            if (destCol == 0) {
                destLine--;
                destCol = destLengths[destLine];
            }
            int srcLine = wrapped.size() - linesToAdd - 1;
            int srcCol = lastLineLength;
            while (srcLine >= 0) {
                int n = Math.min(srcCol, destCol);
                if (destLine >= wrapped.size() || destLine < 0) {
                    break;
                }
                wrapped.get(destLine).copyCellsFrom(wrapped.get(srcLine), srcCol - n, destCol - n, n, true);
                destCol -= n;
                if (destCol == 0) {
                    destLine--;
                    destCol = destLine >= 0 ? destLengths[destLine] : 0;
                }
                srcCol -= n;
                if (srcCol == 0) {
                    srcLine--;
                    srcCol = trimmedLength(wrapped, Math.max(srcLine, 0), oldCols);
                }
            }
            for (int i = 0; i < wrapped.size(); i++) {
                if (destLengths[i] < newCols) {
                    wrapped.get(i).set(destLengths[i], 1 << Attr.WIDTH_SHIFT, 0, 0, 0, null);
                }
            }
            for (int adjust = linesToAdd - trimmed; adjust > 0; adjust--) {
                if (b.ybase == 0) {
                    if (b.y < newRows - 1) {
                        b.y++;
                        lines.pop();
                    } else {
                        b.ybase++;
                    }
                } else if (b.ybase < Math.min(lines.maxLength(), lines.length() + countToInsert) - newRows) {
                    b.ybase++;
                }
            }
            b.savedY = Math.min(b.savedY + linesToAdd, b.ybase + newRows - 1);
        }
        if (toInsert.isEmpty()) {
            return;
        }
        Line[] original = new Line[lines.length()];
        for (int i = 0; i < original.length; i++) {
            original[i] = lines.get(i);
        }
        int originalIndex = original.length - 1;
        int nextIndex = 0;
        Object[] nextInsert = toInsert.get(0);
        lines.setLength(Math.min(lines.maxLength(), lines.length() + countToInsert));
        int insertedSoFar = 0;
        for (int i = Math.min(lines.maxLength() - 1, original.length + countToInsert - 1); i >= 0; i--) {
            if (nextInsert != null && (int) nextInsert[0] > originalIndex + insertedSoFar) {
                @SuppressWarnings("unchecked")
                List<Line> add = (List<Line>) nextInsert[1];
                for (int k = add.size() - 1; k >= 0; k--) {
                    lines.setAt(i--, add.get(k));
                }
                i++;
                insertedSoFar += add.size();
                nextInsert = ++nextIndex < toInsert.size() ? toInsert.get(nextIndex) : null;
            } else {
                lines.set(i, original[originalIndex--]);
            }
        }
    }

    private static int[] newLineLengths(List<Line> wrapped, int oldCols, int newCols) {
        List<Integer> lengths = new ArrayList<>();
        int cellsNeeded = 0;
        for (int i = 0; i < wrapped.size(); i++) {
            cellsNeeded += trimmedLength(wrapped, i, oldCols);
        }
        int srcCol = 0;
        int srcLine = 0;
        int available = 0;
        while (available < cellsNeeded) {
            if (cellsNeeded - available < newCols) {
                lengths.add(cellsNeeded - available);
                break;
            }
            srcCol += newCols;
            int oldTrimmed = trimmedLength(wrapped, srcLine, oldCols);
            if (srcCol > oldTrimmed) {
                srcCol -= oldTrimmed;
                srcLine++;
            }
            boolean endsWithWide = wrapped.get(srcLine).width(srcCol - 1) == 2;
            if (endsWithWide) {
                srcCol--;
            }
            int len = endsWithWide ? newCols - 1 : newCols;
            lengths.add(len);
            available += len;
        }
        return lengths.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int trimmedLength(List<Line> lines, int i, int cols) {
        if (i == lines.size() - 1) {
            return lines.get(i).trimmedLength();
        }
        boolean endsInNull = !lines.get(i).hasContent(cols - 1) && lines.get(i).width(cols - 1) == 1;
        boolean nextStartsWide = lines.get(i + 1).width(0) == 2;
        return endsInNull && nextStartsWide ? cols - 1 : cols;
    }
}
