package dev.limpet.bench.proc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ThreadCpuTest {
    @Test
    void threadsOfEverySessionCountAsOneKindWhateverTheKernelLeftOfTheirIds() {
        assertThat(ThreadCpu.threadKind("pty-read-4ub2s3")).isEqualTo("pty-read-…");
        assertThat(ThreadCpu.threadKind("pty-read-t2xw9q")).isEqualTo("pty-read-…");
        assertThat(ThreadCpu.threadKind("worker-link-ttj")).isEqualTo("worker-link-…");
        assertThat(ThreadCpu.threadKind("rpc-read-12")).isEqualTo("rpc-read-…");
    }

    @Test
    void threadsWithoutAnIdKeepTheirNameWithNumbersTakenOut() {
        assertThat(ThreadCpu.threadKind("C2 CompilerThre")).isEqualTo("C# CompilerThre");
        assertThat(ThreadCpu.threadKind("VM Thread")).isEqualTo("VM Thread");
        assertThat(ThreadCpu.threadKind("ack-timeouts")).isEqualTo("ack-timeouts");
        assertThat(ThreadCpu.threadKind("ForkJoinPool-1-")).isEqualTo("ForkJoinPool-#-");
    }
}
