package dev.limpet.app;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The verbs a mistyped one most likely meant, by edit distance (insertions, deletions,
 * substitutions and transpositions of neighbours each count one: {@code atach} → {@code attach},
 * {@code stauts} → {@code status}). Only close ones are offered: a guess two edits away from a
 * two-letter word would be noise. Fifteen lines of the textbook algorithm rather than a library for it.
 */
final class ClosestVerb {
    /** The most edits a suggestion may be away (and fewer than the typed word's length). */
    static final int MAX_DISTANCE = 2;

    private ClosestVerb() {}

    /** The verbs at the smallest distance from {@code typed}, in {@code verbs}' order; empty when none is close. */
    static List<String> to(String typed, Collection<String> verbs) {
        int best = Math.min(MAX_DISTANCE, typed.length() - 1);
        List<String> closest = new ArrayList<>();
        for (String v : verbs) {
            int d = distance(typed, v);
            if (d < best) {
                best = d;
                closest.clear();
            }
            if (d == best) {
                closest.add(v);
            }
        }
        return closest;
    }

    /** Optimal string alignment distance (Damerau–Levenshtein without edits of edited substrings). */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
