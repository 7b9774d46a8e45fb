package dev.limpet.daemon.backend.tmux;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ControlLinesTest {
    final ControlLines lines = new ControlLines();

    ControlEvent parse(String line) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        return lines.parse(b, b.length);
    }

    @Test
    void outputIsOctalUnescapedAndKeepsUtf8AsItIs() {
        assertThat(parse("%output %3 hi\\015\\012\\134x \\033[1mé")).isEqualTo(
                new ControlEvent.Output("%3", "hi\r\n\\x \u001b[1mé".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void extendedOutputCarriesTheSameBytesAfterItsColon() {
        assertThat(parse("%extended-output %0 1200 : a : b\\012")).isEqualTo(
                new ControlEvent.Output("%0", "a : b\n".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aBackslashWithoutThreeOctalDigitsIsKeptAsItIs() {
        assertThat(parse("%output %1 a\\9b\\01")).isEqualTo(new ControlEvent.Output("%1", "a\\9b\\01".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aReplyIsGatheredUntilItsEndAndSaysWhetherThisClientAskedForIt() {
        assertThat(parse("%begin 1795675922 276 1")).isNull();
        assertThat(parse("1 4")).isNull();
        assertThat(parse("%end 1795675922 276 1")).isEqualTo(new ControlEvent.Reply(true, true, List.of("1 4")));
        assertThat(parse("%begin 1795675922 271 0")).isNull();
        assertThat(parse("%error 1795675922 271 0")).isEqualTo(new ControlEvent.Reply(false, false, List.of()));
    }

    @Test
    void aLineInsideAReplyThatLooksLikeOutputIsPartOfTheReply() {
        parse("%begin 1 2 1");
        assertThat(parse("%output %0 not output")).isNull();
        assertThat(parse("%end 1 2 1")).isEqualTo(new ControlEvent.Reply(true, true, List.of("%output %0 not output")));
    }

    @Test
    void flowControlSubscriptionsAndExitAreRead() {
        assertThat(parse("%pause %2")).isEqualTo(new ControlEvent.Paused("%2"));
        assertThat(parse("%continue %2")).isEqualTo(new ControlEvent.Continued("%2"));
        assertThat(parse("%subscription-changed d $0 @0 0 %0 : 1/4")).isEqualTo(new ControlEvent.Subscription("d", "%0", "1/4"));
        assertThat(parse("%exit")).isEqualTo(new ControlEvent.Exit(""));
        assertThat(parse("%exit server exited")).isEqualTo(new ControlEvent.Exit("server exited"));
    }

    @Test
    void linesItDoesNotUseOrCannotReadAreOtherNeverACrash() {
        assertThat(parse("%layout-change @0 b25d,80x24,0,0,0")).isInstanceOf(ControlEvent.Other.class);
        assertThat(parse("%output")).isInstanceOf(ControlEvent.Other.class);
        assertThat(parse("%output %0")).isInstanceOf(ControlEvent.Other.class);
        assertThat(parse("%extended-output %0 12")).isInstanceOf(ControlEvent.Other.class);
        assertThat(parse("")).isInstanceOf(ControlEvent.Other.class);
    }
}
