package dev.limpet.client.attach;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Records what the controller shows the person. */
final class FakeTerminal implements AttachTerminal {
    final ByteArrayOutputStream screen = new ByteArrayOutputStream();
    final List<String> statuses = new ArrayList<>();
    int bells;
    int columns = 100;
    int rows = 30;
    String status;

    @Override
    public int columns() {
        return columns;
    }

    @Override
    public int rows() {
        return rows;
    }

    @Override
    public void write(byte[] data) {
        screen.writeBytes(data);
    }

    @Override
    public void bell() {
        bells++;
    }

    @Override
    public void showStatus(String text) {
        status = text;
        statuses.add(text);
    }

    @Override
    public void clearStatus() {
        status = null;
    }

    String screenText() {
        return screen.toString(StandardCharsets.UTF_8);
    }
}
