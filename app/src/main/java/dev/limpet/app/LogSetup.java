package dev.limpet.app;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.util.FileSize;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.slf4j.LoggerFactory;

/**
 * The daemon's log as {@code --log-format} and {@code --log-file} ask: text ({@link #PATTERN}) or
 * JSON lines (Logback's own {@link JsonEncoder}: the context's properties carry
 * {@code daemon_instance_id}, key-value pairs carry {@code session_id} and state transitions), on
 * stderr or in a file rotated by size. Left as {@link LogConfigurator} set it up when neither is given.
 */
final class LogSetup {
    static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSX,UTC} %-5level %logger{0}: %msg%n";
    static final String MAX_FILE_SIZE = "10MB";
    static final int FILES_KEPT = 5;

    private LogSetup() {}

    static void apply(String format, Path file) {
        if (format.equals("text") && file == null) {
            return;
        }
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        Encoder<ILoggingEvent> encoder = format.equals("json") ? json(ctx) : text(ctx);
        OutputStreamAppender<ILoggingEvent> appender = file == null ? stderr(ctx, encoder) : rolling(ctx, encoder, file);
        Logger root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.detachAndStopAllAppenders();
        root.addAppender(appender);
    }

    private static Encoder<ILoggingEvent> json(LoggerContext ctx) {
        JsonEncoder e = new JsonEncoder();
        e.setContext(ctx);
        e.setWithSequenceNumber(false);
        e.setWithNanoseconds(false);
        e.setWithArguments(false);
        e.setWithMessage(false);
        e.setWithFormattedMessage(true);
        e.start();
        return e;
    }

    static Encoder<ILoggingEvent> text(LoggerContext ctx) {
        PatternLayoutEncoder e = new PatternLayoutEncoder();
        e.setContext(ctx);
        e.setPattern(PATTERN);
        e.start();
        return e;
    }

    static OutputStreamAppender<ILoggingEvent> stderr(LoggerContext ctx, Encoder<ILoggingEvent> encoder) {
        ConsoleAppender<ILoggingEvent> a = new ConsoleAppender<>();
        a.setContext(ctx);
        a.setName("STDERR");
        a.setTarget("System.err");
        a.setEncoder(encoder);
        a.start();
        return a;
    }

    private static OutputStreamAppender<ILoggingEvent> rolling(LoggerContext ctx, Encoder<ILoggingEvent> encoder, Path file) {
        RollingFileAppender<ILoggingEvent> a = new PrivateRollingFileAppender<>();
        a.setContext(ctx);
        a.setName("FILE");
        a.setFile(file.toString());
        FixedWindowRollingPolicy rolling = new FixedWindowRollingPolicy();
        rolling.setContext(ctx);
        rolling.setParent(a);
        rolling.setFileNamePattern(file + ".%i");
        rolling.setMinIndex(1);
        rolling.setMaxIndex(FILES_KEPT);
        rolling.start();
        SizeBasedTriggeringPolicy<ILoggingEvent> trigger = new SizeBasedTriggeringPolicy<>();
        trigger.setContext(ctx);
        trigger.setMaxFileSize(FileSize.valueOf(MAX_FILE_SIZE));
        // The size is looked at on the first line after this much time (a stat per second at most).
        trigger.setCheckIncrement(ch.qos.logback.core.util.Duration.buildBySeconds(1));
        trigger.start();
        a.setRollingPolicy(rolling);
        a.setTriggeringPolicy(trigger);
        a.setEncoder(encoder);
        a.start();
        return a;
    }

    /**
     * Creates each log file 0600 before Logback opens it (the first and every one after a
     * rollover): what the log holds (session ids, labels, commands) is for this user alone.
     */
    static final class PrivateRollingFileAppender<E> extends RollingFileAppender<E> {
        @Override
        public void openFile(String name) throws IOException {
            Path path = Path.of(name);
            try {
                Files.createFile(path, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rw-------")));
            } catch (FileAlreadyExistsException e) {
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
            }
            super.openFile(name);
        }
    }

    /** Puts the daemon's identity on every later line (JSON: {@code context.properties.daemon_instance_id}). */
    static void daemonInstance(String id) {
        ((LoggerContext) LoggerFactory.getILoggerFactory()).putProperty("daemon_instance_id", id);
    }
}
