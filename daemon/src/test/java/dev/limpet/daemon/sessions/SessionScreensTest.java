package dev.limpet.daemon.sessions;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SessionScreensTest {
    private final SessionScreens screens = new SessionScreens(null);

    @Test
    void aTitleIsKeptWithoutControlCharactersAndCutToOneHundredTwentyCharacters() {
        screens.titleChanged("s1", "  vim \u0007main.c\u001b  ");
        assertThat(screens.title("s1")).isEqualTo("vim main.c");
        screens.titleChanged("s2", "x".repeat(300));
        assertThat(screens.title("s2")).hasSize(120).endsWith("…");
    }

    @Test
    void anEmptyTitleOrAForgottenSessionHasNone() {
        screens.titleChanged("s1", "make");
        screens.titleChanged("s1", " \u0007 ");
        assertThat(screens.title("s1")).isNull();
        screens.titleChanged("s2", "top");
        screens.forget("s2");
        assertThat(screens.title("s2")).isNull();
        screens.titleChanged("s3", null);
        assertThat(screens.title("s3")).isNull();
    }
}
