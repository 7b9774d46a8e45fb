package dev.limpet.vt;

/**
 * The 94-character sets selectable with ESC ( x, ESC ) x etc., as xterm.js defines them: DEC
 * special graphics ('0'), UK, Dutch, Finnish, French, French Canadian, German, Italian,
 * Norwegian/Danish, Spanish, Swedish and Swiss. A charset maps ASCII code points below 127 to
 * replacements; {@code null} is plain ASCII (US, 'B').
 */
final class Charsets {
    private Charsets() {
    }

    /** The designator characters xterm.js recognises (others are ignored). */
    static final String DESIGNATORS = "0AB4C5RQKYE6ZH7=";

    private static final int[][] TABLES = new int[128][];

    static {
        def("0", "`\u25c6a\u2592b\u2409c\u240cd\u240de\u240af\u00b0g\u00b1h\u2424i\u240bj\u2518k\u2510l\u250cm\u2514"
                + "n\u253co\u23bap\u23bbq\u2500r\u23bcs\u23bdt\u251cu\u2524v\u2534w\u252cx\u2502y\u2264z\u2265"
                + "{\u03c0|\u2260}\u00a3~\u00b7");
        def("A", "#£");
        def("4", "#£@¾[i\\½]|{¨|f}¼~´");
        def("C5", "[Ä\\Ö]Å^Ü`é{ä|ö}å~ü");
        def("R", "#£@à[°\\ç]§{é|ù}è~¨");
        def("Q", "@à[â\\ç]ê^î`ô{é|ù}è~û");
        def("K", "@§[Ä\\Ö]Ü{ä|ö}ü~ß");
        def("Y", "#£@§[°\\ç]é`ù{à|ò}è~ì");
        def("E6", "@Ä[Æ\\Ø]Å^Ü`ä{æ|ø}å~ü");
        def("Z", "#£@§[¡\\Ñ]¿{°|ñ}ç");
        def("H7", "@É[Ä\\Ö]Å^Ü`é{ä|ö}å~ü");
        def("=", "#ù@à[é\\ç]ê^î_è`ô{ä|ö}ü~û");
    }

    private static void def(String designators, String pairs) {
        int[] map = new int[128];
        for (int i = 0; i < pairs.length(); i += 2) {
            map[pairs.charAt(i)] = pairs.charAt(i + 1);
        }
        for (char d : designators.toCharArray()) {
            TABLES[d] = map;
        }
    }

    /** The mapping for designator {@code d}, or {@code null} for US ASCII / unknown sets. */
    static int[] forDesignator(int d) {
        return d < 128 ? TABLES[d] : null;
    }

    /** The designator of a mapping (for snapshots); 'B' for {@code null}. */
    static char designatorOf(int[] map) {
        if (map == null) {
            return 'B';
        }
        for (char d : DESIGNATORS.toCharArray()) {
            if (TABLES[d] == map) {
                return d;
            }
        }
        return 'B';
    }
}
