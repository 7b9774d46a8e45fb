package dev.limpet.protocol.log;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ClientErrorLogTest {
    final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-27T00:00:00Z"));
    final InstantSource clock = now::get;
    final Logger logger = (Logger) LoggerFactory.getLogger("client-error-log-test");
    final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    ClientErrorLogTest() {
        lines.start();
        logger.addAppender(lines);
    }

    @Test
    void aThousandRefusalsFromOneAddressWriteAHandfulOfLinesAndAnotherAddressIsStillHeard() {
        ClientErrorLog log = new ClientErrorLog(logger, clock);
        for (int i = 0; i < 1000; i++) {
            log.forAddress("203.0.113.7").warn("refused a client from {}: pairing_invalid", "203.0.113.7");
        }
        assertThat(lines.list).hasSize(ClientErrorLog.ADDRESS_BURST);
        log.forAddress("198.51.100.1").warn("refused a client from {}: pairing_invalid", "198.51.100.1");
        assertThat(lines.list).hasSize(ClientErrorLog.ADDRESS_BURST + 1);
        now.set(now.get().plus(Duration.ofSeconds(2)));
        log.forAddress("203.0.113.7").warn("refused a client from {}: pairing_invalid", "203.0.113.7");
        assertThat(lines.list.getLast().getFormattedMessage()).contains("995 earlier lines from this address not logged");
    }

    @Test
    void manyAddressesAtOnceAreBoundedByTheWholeLogsBudget() {
        ClientErrorLog log = new ClientErrorLog(logger, clock);
        for (int i = 0; i < 1000; i++) {
            log.forAddress("10.0." + (i / 250) + "." + (i % 250)).warn("refused a client");
        }
        assertThat(lines.list).hasSize(ClientErrorLog.BURST);
    }
}
