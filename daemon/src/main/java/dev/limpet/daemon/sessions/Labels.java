package dev.limpet.daemon.sessions;

import dev.limpet.protocol.ErrorCode;
import dev.limpet.protocol.ProtocolException;

/** Session labels: 1–128 characters, no control characters. */
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
        return label.strip();
    }

    /** A default label for a command: the program's base name. */
    static String fromCommand(java.util.List<String> argv) {
        String program = argv.isEmpty() ? "session" : argv.getFirst();
        int slash = program.lastIndexOf('/');
        String base = slash >= 0 ? program.substring(slash + 1) : program;
        base = base.replaceAll("\\p{Cntrl}", "");
        return base.isEmpty() ? "session" : (base.length() > 128 ? base.substring(0, 128) : base);
    }
}
