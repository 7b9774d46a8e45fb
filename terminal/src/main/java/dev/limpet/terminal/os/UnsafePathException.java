package dev.limpet.terminal.os;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A path limpet refuses to use because someone else could control it: a symbolic link where a
 * private directory or file belongs, an owner other than this process's user, or a directory on
 * the way that other users may write to. The message names the path, the reason and the remedy.
 */
public final class UnsafePathException extends IOException {
    private final Path path;

    public UnsafePathException(Path path, String message) {
        super(message);
        this.path = path;
    }

    public Path path() {
        return path;
    }
}
