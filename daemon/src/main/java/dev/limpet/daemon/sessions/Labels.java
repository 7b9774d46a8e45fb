package dev.limpet.daemon.sessions;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;
import dev.limpet.protocol.SafeText;
import java.util.List;

/**
 * Session labels: 1–128 characters, no control characters and no invisible format characters
 * (bidi overrides and isolates, zero-width spaces and joiners, the BOM) nor line separators: a
 * label is shown to people, and those would let one label pass for another or reorder the text
 * around it. A joiner inside an emoji (👩‍💻) is part of the emoji and kept.
 */
final class Labels {
    private Labels() {}

    static String requireValid(String label) {
        if (label == null || label.isBlank()) {
            throw new ProtocolException(ErrorCode.INVALID_LABEL, "a label must not be empty");
        }
        if (label.length() > 128) {
            throw new ProtocolException(ErrorCode.INVALID_LABEL, "a label must be at most 128 characters");
        }
        if (label.codePoints().anyMatch(Character::isISOControl)) {
            throw new ProtocolException(ErrorCode.INVALID_LABEL, "a label must not contain control characters");
        }
        if (SafeText.hasUnsafe(label)) {
            throw new ProtocolException(ErrorCode.INVALID_LABEL,
                    "a label must not contain invisible format characters (bidi overrides, zero-width characters) or line separators");
        }
        return label.strip();
    }

    /** A default label for a command: the program's base name. */
    static String fromCommand(List<String> argv) {
        String program = argv.isEmpty() ? "session" : argv.getFirst();
        int slash = program.lastIndexOf('/');
        String base = slash >= 0 ? program.substring(slash + 1) : program;
        base = base.codePoints().filter(cp -> !SafeText.isUnsafe(cp))
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        return base.isEmpty() ? "session" : (base.length() > 128 ? base.substring(0, 128) : base);
    }
}
