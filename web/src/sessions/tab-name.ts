// What a tab or a session is called. A person's name always wins (a rename here, a name given at
// start, or a label the daemon holds that is not its default); then the title the program set
// (OSC 0/2, as shells set "user@host: ~/src" and editors the file name); then the program's name
// (argv[0]'s base name, the daemon's default label) with the last part of its directory, so two
// shells read "bash · api" and "bash · web", not "bash" twice. Before the daemon has answered, the
// last known name.
import type { SessionInfo } from '../protocol/messages';

/** Titles longer than this are cut (a tab is no place for a paragraph). */
export const MAX_TITLE_LENGTH = 80;

export interface NameInput {
  /** Whether a person named the tab in this page (rename, or a name given at start). */
  userNamed: boolean;
  /** The name the tab has now (the person's, or the last one computed). */
  current: string;
  /** The daemon's label for the session, when the tab has one. */
  label: string | null;
  /** The session's argv, when known. */
  command: string[] | null;
  /** The title the program set, if any. */
  title: string | null;
  /** Where the program runs (its last known directory), when known. */
  cwd?: string | null;
}

export function tabName(input: NameInput): string {
  if (input.userNamed) return input.current;
  if (input.label !== null && isPersonLabel(input.label, input.command)) return input.label;
  const title = cleanTitle(input.title);
  if (title) return title;
  if (input.command && input.command.length > 0) return programName(input.command, input.cwd ?? null);
  return input.label ?? input.current;
}

/** A daemon session's name where no tab of this page holds it (the session list, a notification). */
export function sessionName(session: SessionInfo): string {
  return tabName({
    userNamed: false, current: session.label || session.id, label: session.label, command: session.command,
    title: session.title ?? null, cwd: session.last_cwd ?? session.cwd,
  });
}

/** "bash · api": the program's name and the last part of its directory (none for "/" or unknown). */
export function programName(command: string[], cwd: string | null): string {
  const program = defaultLabel(command);
  const dir = cwd?.replace(/\/+$/, '').split('/').pop()?.replace(/[\u0000-\u001f\u007f]/g, '') ?? '';
  return dir ? `${program} · ${dir.slice(0, 40)}` : program;
}

/**
 * Whether a label was chosen by a person rather than given by the daemon: the daemon labels a
 * session with its program's base name unless told otherwise (a rename, `limpet new --label`).
 */
export function isPersonLabel(label: string, command: string[] | null): boolean {
  return command !== null && command.length > 0 && label !== defaultLabel(command);
}

/** The daemon's default label for an argv: argv[0]'s base name (as daemon Labels.fromCommand). */
export function defaultLabel(command: string[]): string {
  const program = command[0] ?? '';
  const base = program.slice(program.lastIndexOf('/') + 1).replace(/[\u0000-\u001f\u007f]/g, '');
  return base === '' ? 'session' : base.slice(0, 128);
}

/** A program's title made fit for a tab: control characters removed, trimmed, cut; null when empty. */
export function cleanTitle(title: string | null): string | null {
  if (title === null) return null;
  const clean = title.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
  if (clean === '') return null;
  return clean.length > MAX_TITLE_LENGTH ? `${clean.slice(0, MAX_TITLE_LENGTH - 1)}…` : clean;
}
