package dev.limpet.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** Prints {@code ready}, then {@code got: LINE} for every line read from stdin; exits 0 at end of input. */
public final class EchoLines {
    private EchoLines() {}

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("ready");
        System.out.flush();
        for (String line; (line = in.readLine()) != null; ) {
            System.out.println("got: " + line);
            System.out.flush();
        }
    }
}
