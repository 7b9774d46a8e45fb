package dev.limpet.app.config;

/** A settings file or variable the daemon cannot use; the message names the file, line and key (or the variable). */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }
}
