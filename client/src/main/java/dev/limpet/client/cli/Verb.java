package dev.limpet.client.cli;

import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Shared plumbing of the REST-backed verbs: find the daemon, print text or JSON. */
abstract class Verb implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    DaemonHttp daemon() {
        return new DaemonHttp(DaemonLocator.locate(common));
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    void printJson(Object value) {
        out().println(JsonTree.write(value));
        out().flush();
    }

    static String sessionPath(String idOrLabel) {
        return "/api/sessions/" + URLEncoder.encode(idOrLabel, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String text(JsonTree node, String field) {
        return node.path(field).text();
    }
}
