package dev.limpet.client.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/**
 * A client verb is a JVM of its own, started per call: every class its graph reaches is start-up
 * time. These rules keep the server and the heavy JDK client out of it.
 */
class VerbClassGraphTest {
    // ArchUnit's plain API under JUnit Jupiter: its own JUnit 5 engine is not needed for two rules.
    private static final JavaClasses CLIENT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.limpet.client");

    @Test
    void clientClassesDependOnNoServerClasses() {
        noClasses().that().resideInAPackage("dev.limpet.client..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.limpet.daemon..", "dev.limpet.web..", "dev.limpet.worker..", "dev.limpet.app..",
                        "io.javalin..", "org.eclipse.jetty..", "org.sqlite..", "ch.qos.logback..")
                .because("a verb's JVM should load only what talking to a daemon takes")
                .check(CLIENT);
    }

    @Test
    void theDailyRestVerbsAndTheirPlumbingNeedNoJackson() {
        noClasses().that().belongToAnyOf(LsCommand.class, StatusCommand.class, SendCommand.class, CaptureCommand.class, Verb.class,
                        DaemonHttp.class, DaemonLocator.class, JsonTree.class, JsonText.class, PlainHttp.class, CommonOptions.class,
                        CliException.class, WaitCommand.class, HookCommand.class)
                .should().dependOnClassesThat().resideInAPackage("com.fasterxml.jackson..")
                .orShould().dependOnClassesThat().belongToAnyOf(BigDecimal.class)
                .because("databind's ~700 classes were once the largest part of a verb's start-up, and any Jackson parser"
                        + " initialises java.math.BigDecimal, whose JDK 25 initialiser alone costs a verb a quarter of its own CPU")
                .check(CLIENT);
    }

    @Test
    void verbsReachJavaNetHttpOnlyForHttpsDaemons() {
        noClasses().that().resideInAPackage("dev.limpet.client.cli..")
                .and().doNotHaveFullyQualifiedName(DaemonHttp.class.getName() + "$Tls")
                .should().dependOnClassesThat().resideInAPackage("java.net.http..")
                .because("java.net.http brings ~280 TLS classes and a selector thread that delays a verb's exit (PlainHttp)")
                .check(CLIENT);
    }
}
