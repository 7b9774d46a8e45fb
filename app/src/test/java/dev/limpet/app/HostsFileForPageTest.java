package dev.limpet.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.limpet.daemon.gateway.CockpitHost;
import dev.limpet.protocol.relay.PairingSecret;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostsFileForPageTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        return p;
    }

    @Test
    void givesTheBrowserEachHostsAddressAndCredentialAndNamesTheEntriesItCannotRead() throws Exception {
        String secret = PairingSecret.generate(new SecureRandom()).encoded();
        write("pairings/far", secret + "\n");
        write("box-token", "t0ken\n");
        Path hosts = write("hosts.json", """
                {"hosts":[
                  {"name":"far","relay":"https://relay.example/h/abcdefghijklmnopqrstuvwxyz","secret_file":"pairings/far"},
                  {"name":"box","url":"http://10.0.0.2:7420/","token_file":"box-token"},
                  {"name":"gone","url":"http://10.0.0.3:7420","token_file":"missing-token"}]}""");
        CockpitHost.Listing listing = new HostsFileForPage(() -> hosts).read();
        assertThat(listing.hosts()).containsExactly(
                CockpitHost.relay("far", "https://relay.example/h/abcdefghijklmnopqrstuvwxyz", secret),
                CockpitHost.direct("box", "http://10.0.0.2:7420", "t0ken"));
        assertThat(listing.problems()).singleElement().asString().contains("gone").contains("missing-token");
    }

    @Test
    void noHostsFileMeansNoOtherHostsAndABrokenOneIsOneProblem() throws Exception {
        assertThat(new HostsFileForPage(() -> dir.resolve("hosts.json")).read()).isEqualTo(CockpitHost.Listing.NONE);
        Path broken = write("hosts.json", "{nope");
        CockpitHost.Listing listing = new HostsFileForPage(() -> broken).read();
        assertThat(listing.hosts()).isEmpty();
        assertThat(listing.problems()).singleElement().asString().contains("hosts.json");
    }
}
