package dev.limpet.vt;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Feeds the same operations to a {@link ScreenModel} and to xterm.js and collects differences.
 * All cases of one {@link #check()} call run in a single node process.
 */
final class Differential {
    private final List<XtermOracle.Job> jobs = new ArrayList<>();
    private final List<ScreenModel> models = new ArrayList<>();
    private final Path tmp;
    private int fileCount;

    Differential() throws IOException {
        tmp = Files.createTempDirectory("vt-diff");
        tmp.toFile().deleteOnExit();
    }

    /** A case that starts from a fresh terminal; add writes and resizes to the returned handle. */
    Case add(String id, int cols, int rows, int scrollback) {
        XtermOracle.Job job = new XtermOracle.Job(id, cols, rows, scrollback);
        ScreenModel model = ScreenModel.create(cols, rows, scrollback);
        jobs.add(job);
        models.add(model);
        return new Case(job, model);
    }

    /** A case comparing an already fed model with a fresh xterm.js that receives the given writes. */
    Case addExisting(String id, ScreenModel model, int scrollback) {
        XtermOracle.Job job = new XtermOracle.Job(id, model.cols(), model.rows(), scrollback);
        jobs.add(job);
        models.add(model);
        return new Case(job, model);
    }

    /** Stores bytes in a temporary file for the oracle. */
    Path file(byte[] data) throws IOException {
        Path p = tmp.resolve("s" + fileCount++ + ".bin");
        Files.write(p, data);
        p.toFile().deleteOnExit();
        return p;
    }

    final class Case {
        final XtermOracle.Job job;
        final ScreenModel model;

        Case(XtermOracle.Job job, ScreenModel model) {
            this.job = job;
            this.model = model;
        }

        Case write(byte[] data) throws IOException {
            return write(file(data), data, 0, data.length);
        }

        /** Writes {@code data[off, off+len)} which is also the content of {@code file}. */
        Case write(Path file, byte[] data, int off, int len) {
            job.write(file, off, len);
            model.feed(data, off, len);
            return this;
        }

        Case resize(int cols, int rows) {
            job.resize(cols, rows);
            model.resize(cols, rows);
            return this;
        }
    }

    /** Runs the oracle; returns a report of all failing cases (empty when all match). */
    String check() throws IOException, InterruptedException {
        Map<String, String> expected = XtermOracle.run(jobs);
        StringBuilder report = new StringBuilder();
        int failures = 0;
        for (int i = 0; i < jobs.size(); i++) {
            String id = jobs.get(i).id;
            String exp = expected.get(id);
            String act = StateDump.of(models.get(i));
            if (exp == null) {
                report.append("case ").append(id).append(": no result from xterm.js\n");
                failures++;
                continue;
            }
            String d = XtermOracle.diff(exp, act, 6);
            if (d != null) {
                failures++;
                if (failures <= 20) {
                    report.append("case ").append(id).append(" differs:\n").append(d);
                }
            }
        }
        if (failures > 0) {
            report.insert(0, failures + " of " + jobs.size() + " cases differ from xterm.js\n");
        }
        return report.toString();
    }
}
