package dev.limpet.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import com.fasterxml.jackson.databind.JsonNode;
import dev.limpet.protocol.ProtocolCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class LogSetupTest {
    @TempDir
    Path tmp;

    @AfterEach
    void backToTheDefaultConfiguration() throws Exception {
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        ctx.reset();
        new ContextInitializer(ctx).autoConfig();
    }

    @Test
    void jsonLogLinesParseOneObjectEachWithTheDaemonAndSessionAsFields() throws Exception {
        Path file = tmp.resolve("daemon.log");
        LogSetup.apply("json", file);
        LogSetup.daemonInstance("d-0123456789abcdef");
        Logger log = LoggerFactory.getLogger("dev.limpet.daemon.sessions.SessionService");
        log.atInfo().addKeyValue("session_id", "abcdefgh").addKeyValue("from", "running").addKeyValue("to", "exited")
                .log("session {} running -> exited (exit 0)", "abcdefgh");
        log.warn("a line with \"quotes\" and a\nnewline");
        List<String> lines = Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList();
        assertThat(lines).hasSize(2);
        JsonNode first = ProtocolCodec.mapper().readTree(lines.get(0));
        assertThat(first.path("level").asText()).isEqualTo("INFO");
        assertThat(first.path("formattedMessage").asText()).isEqualTo("session abcdefgh running -> exited (exit 0)");
        assertThat(first.path("context").path("properties").path("daemon_instance_id").asText()).isEqualTo("d-0123456789abcdef");
        assertThat(first.path("kvpList").toString()).contains("\"session_id\":\"abcdefgh\"").contains("\"to\":\"exited\"");
        assertThat(ProtocolCodec.mapper().readTree(lines.get(1)).path("formattedMessage").asText()).contains("\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    @Test
    void aLogFileRotatesBySizeKeepingAFixedNumber() throws Exception {
        Path file = tmp.resolve("daemon.log");
        LogSetup.apply("text", file);
        Logger log = LoggerFactory.getLogger("rotation");
        String line = "x".repeat(1000);
        for (int i = 0; i < 12_000; i++) {
            log.info(line);
        }
        Thread.sleep(1_200); // the size is checked at most once a second
        log.info("the line after the check");
        assertThat(file.resolveSibling("daemon.log.1")).exists();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).as("the file opened after the rollover").isEqualTo("rw-------");
        assertThat(Files.size(file)).isLessThan(11L << 20);
        try (var files = Files.list(tmp)) {
            assertThat(files.count()).isLessThanOrEqualTo(1 + LogSetup.FILES_KEPT);
        }
    }
}
