package dev.limpet.daemon.sessions;

import dev.limpet.daemon.revive.AgentProfiles;
import dev.limpet.daemon.revive.Conversations;
import dev.limpet.terminal.journal.JournalFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;

/**
 * How sessions are made revivable after their program was lost (reboot, crash).
 *
 * @param journalDir    {@code <data_root>/journal} (private); null: no session keeps a journal ({@code --no-journal})
 * @param journalLimit  the cap of one session's journal
 * @param historyBytes  how much of the journal's tail a revived session shows
 * @param profiles      the agent profiles
 * @param cwdSampleEvery how often running sessions' working directories are looked up ({@code /proc/<pid>/cwd})
 * @param zone          the zone of the time in the restore marker
 * @param conversations what the agents' own files say about their conversations
 */
public record ReviveSettings(Path journalDir, long journalLimit, int historyBytes, AgentProfiles profiles, Duration cwdSampleEvery,
        ZoneId zone, Conversations conversations) {
    public static final int DEFAULT_HISTORY_BYTES = 64 * 1024;
    public static final Duration DEFAULT_CWD_SAMPLE = Duration.ofSeconds(15);

    /** The same settings, the agents' files read through {@code files}. */
    public ReviveSettings withConversations(Conversations files) {
        return new ReviveSettings(journalDir, journalLimit, historyBytes, profiles, cwdSampleEvery, zone, files);
    }

    /** No journal, the built-in profiles: what a service gets unless told otherwise. */
    public static ReviveSettings withoutJournal() {
        return new ReviveSettings(null, JournalFormat.DEFAULT_LIMIT_BYTES, DEFAULT_HISTORY_BYTES, AgentProfiles.builtIn(),
                DEFAULT_CWD_SAMPLE, ZoneId.systemDefault(), Conversations.UNKNOWN);
    }
}
