package dev.limpet.vt;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Hyperlinks opened with OSC 8. Ids are positive; a link with an explicit {@code id=} parameter
 * and the same URI reuses its id, as in xterm.js. The table is pruned to the links still
 * referenced by cells or the pen when it grows large, so memory stays bounded.
 */
final class Links {
    record Link(String id, String uri) {
    }

    private static final int PRUNE_AT = 4096;
    private final Map<Integer, Link> byNumber = new HashMap<>();
    private final Map<Link, Integer> withId = new HashMap<>();
    private int next = 1;
    private int pruneLimit = PRUNE_AT;

    int register(String id, String uri, Emulator t) {
        Link link = new Link(id, uri);
        if (id != null) {
            Integer known = withId.get(link);
            if (known != null) {
                return known;
            }
        }
        if (byNumber.size() >= pruneLimit) {
            prune(t);
        }
        int n = next++;
        if (next <= 0) {
            next = 1;
        }
        byNumber.put(n, link);
        if (id != null) {
            withId.put(link, n);
        }
        return n;
    }

    Link get(int n) {
        return byNumber.get(n);
    }

    private void prune(Emulator t) {
        Set<Integer> used = new HashSet<>();
        used.add(t.pen.link);
        for (ScreenBuffer b : new ScreenBuffer[] {t.normal, t.alt}) {
            for (int i = 0; i < b.lines.length(); i++) {
                Line l = b.lines.get(i);
                for (int x = 0; x < l.length; x++) {
                    if (l.link(x) != 0) {
                        used.add(l.link(x));
                    }
                }
            }
        }
        byNumber.keySet().retainAll(used);
        withId.values().retainAll(used);
        pruneLimit = Math.max(PRUNE_AT, byNumber.size() * 2);
    }
}
