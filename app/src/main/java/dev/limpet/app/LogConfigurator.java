package dev.limpet.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * limpet's logging set up in code, found by Logback through the service loader: text lines on
 * stderr (stdout is what a command prints: the daemon's URL line, verbs' output), the root at
 * {@code limpet.log.level} (INFO; verbs set WARN), Jetty and Javalin at WARN. Why not a
 * {@code logback.xml}: Logback's XML configuration (Joran and the JDK's XML parser, ~230 classes and
 * their parse) was a tenth of the daemon's start-up classes, paid at every start and every recovery.
 * A {@code logback-test.xml} on the class path, or {@code -Dlogback.configurationFile}, is left to
 * Logback as usual. {@link LogSetup} then applies {@code --log-format} and {@code --log-file}.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class LogConfigurator extends ContextAwareBase implements Configurator {
    public LogConfigurator() {}

    @Override
    public ExecutionStatus configure(LoggerContext ctx) {
        if (System.getProperty("logback.configurationFile") != null || LogConfigurator.class.getClassLoader().getResource("logback-test.xml") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        ch.qos.logback.classic.Logger root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(System.getProperty("limpet.log.level", "INFO"), Level.INFO));
        root.addAppender(LogSetup.stderr(ctx, LogSetup.text(ctx)));
        ctx.getLogger("org.eclipse.jetty").setLevel(Level.WARN);
        ctx.getLogger("io.javalin").setLevel(Level.WARN);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
