// What the page says about a tab: why it shows no live program and the one thing a person can ask
// of it (an offer), and the passing messages (toasts) when its session went away or keys were not
// sent. Every button here is a person's request: nothing presses it for them (attach-planner.ts).
import type { SessionInfo } from '../protocol/messages';

export type OfferKind =
  | 'exited' // the program ended: Restart runs the same command in the same directory
  | 'recoverable' // its program was lost (reboot, crash): Restart continues it, or starts it new
  | 'no_longer_exists' // the session belonged to another daemon
  | 'start_unconfirmed' // the connection dropped while its start was in flight
  | 'start_failed' // the daemon could not start the program
  | 'no_session' // remembered without a session (after a failed start and a reload)
  | 'attach_failed'; // the daemon refused to attach

/**
 * `restart`: start the tab's command again as a new session; `retry`: attach the same session
 * again; `revive`: start a recoverable session again (an agent continues its conversation);
 * `revive_fresh`: the same, an agent starting a new conversation.
 */
export type OfferAction = 'restart' | 'retry' | 'revive' | 'revive_fresh';

export interface TabOffer {
  kind: OfferKind;
  message: string;
  button: string;
  action: OfferAction;
  /** A second choice beside the first (Restart: new beside Restart: continue). */
  secondary?: { button: string; action: OfferAction };
}

export function exitStatusText(session: Pick<SessionInfo, 'exit_code' | 'exit_signal'> | null): string {
  if (session?.exit_signal) return `was killed by SIG${session.exit_signal}`;
  return `exited with code ${session?.exit_code ?? '?'}`;
}

export function exitedOffer(session: SessionInfo | null): TabOffer {
  return { kind: 'exited', message: `The program ${exitStatusText(session)}.`, button: 'Restart', action: 'restart' };
}

/**
 * A recoverable session: its program was lost with the daemon or the machine. Nothing starts it
 * until a person presses one of the buttons (or opens the tab from the session list).
 */
export function recoverableOffer(session: SessionInfo | null, refusal?: string): TabOffer {
  const why = refusal ?? session?.reason ?? 'its daemon or the machine stopped';
  return {
    kind: 'recoverable', action: 'revive', button: 'Restart: continue',
    message: `The program of this session was lost (${why}).`,
    secondary: { button: 'Restart: new', action: 'revive_fresh' },
  };
}

export function noLongerExistsOffer(): TabOffer {
  return { kind: 'no_longer_exists', action: 'restart', button: 'New', message: 'This session no longer exists (it belonged to another daemon).' };
}

export function startUnconfirmedOffer(): TabOffer {
  return {
    kind: 'start_unconfirmed', action: 'restart', button: 'Start again',
    message: 'The connection dropped while this program was starting: it may be running (see Sessions).',
  };
}

export function startFailedOffer(reason: string): TabOffer {
  return { kind: 'start_failed', action: 'restart', button: 'Try again', message: `Could not start the program: ${reason}` };
}

export function noSessionOffer(): TabOffer {
  return { kind: 'no_session', action: 'restart', button: 'Start', message: 'This tab has no session.' };
}

export function attachFailedOffer(reason: string): TabOffer {
  return { kind: 'attach_failed', action: 'retry', button: 'Try again', message: `Could not attach: ${reason}` };
}

/**
 * Why keys a person typed were not sent: `full` (the page holds as much as it may while it waits
 * for its session), `ended`, `read_only`; or not delivered after they were sent: `daemon_full`
 * (the daemon holds as much as it may for a stuck session), `undelivered` (the session ended, or
 * was removed, with them still waiting).
 */
export type KeysNotSentReason = 'full' | 'ended' | 'read_only' | 'daemon_full' | 'undelivered';

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function keyCount(keys: number): string {
  return keys === 1 ? '1 key' : `${keys} keys`;
}

export function keysNotSentText(name: string, keys: number, reason: KeysNotSentReason, limitBytes: number): string {
  switch (reason) {
    case 'full':
      return `Typing refused in “${name}”: at most ${limitBytes / 1024} KiB of keys can wait for the connection.`;
    case 'read_only':
      return `“${name}” is read-only here: ${keyCount(keys)} not sent.`;
    case 'ended':
      return `“${name}” has no running program: ${keyCount(keys)} not sent.`;
    case 'daemon_full':
      return `Typing refused in “${name}”: its program has taken no keys for a while and 256 KiB of them already wait for it.`;
    case 'undelivered':
      return `${capitalized(keyCount(keys))} typed into “${name}” never reached its program: it ended first.`;
  }
}

/** The toast when a tab closes because its session went away elsewhere; held keys are owned up to. */
export function closedElsewhereText(name: string, reason: 'removed' | 'duplicate', unsentKeys: number): string {
  const unsent = unsentKeys > 0 ? ` ${keyCount(unsentKeys)} typed while reconnecting ${unsentKeys === 1 ? 'was' : 'were'} not sent.` : '';
  return reason === 'removed'
    ? `“${name}” was closed elsewhere (its session was removed), so its tab was closed.${unsent}`
    : `A second tab showing “${name}” was closed: one tab per session.${unsent}`;
}
