// What the page says about a tab: why it shows no live program and the one thing a person can ask
// of it (an offer), and the passing messages (toasts) when its session went away or keys were not
// sent. Every button here is a person's request: nothing presses it for them (attach-planner.ts).
import type { SessionInfo } from '../protocol/messages';

export type OfferKind =
  | 'exited' // the program ended: Restart runs the same command in the same directory
  | 'lost' // recoverable, and the daemon did not revive it on attach
  | 'no_longer_exists' // the session belonged to another daemon
  | 'start_unconfirmed' // the connection dropped while its start was in flight
  | 'start_failed' // the daemon could not start the program
  | 'no_session' // remembered without a session (after a failed start and a reload)
  | 'attach_failed'; // the daemon refused to attach

/** `restart`: start the tab's command again as a new session; `retry`: attach the same session again. */
export type OfferAction = 'restart' | 'retry';

export interface TabOffer {
  kind: OfferKind;
  message: string;
  button: string;
  action: OfferAction;
}

export function exitStatusText(session: Pick<SessionInfo, 'exit_code' | 'exit_signal'> | null): string {
  if (session?.exit_signal) return `was killed by SIG${session.exit_signal}`;
  return `exited with code ${session?.exit_code ?? '?'}`;
}

export function exitedOffer(session: SessionInfo | null): TabOffer {
  return { kind: 'exited', message: `The program ${exitStatusText(session)}.`, button: 'Restart', action: 'restart' };
}

export function lostOffer(): TabOffer {
  return {
    kind: 'lost', action: 'restart', button: 'Restart',
    message: 'The program of this session was lost (its daemon or the machine stopped) and the daemon did not revive it.',
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

/** Why keys a person typed were not sent. */
export type KeysNotSentReason = 'full' | 'ended' | 'read_only';

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
  }
}

/** The toast when a tab closes because its session went away elsewhere; held keys are owned up to. */
export function closedElsewhereText(name: string, reason: 'removed' | 'duplicate', unsentKeys: number): string {
  const unsent = unsentKeys > 0 ? ` ${keyCount(unsentKeys)} typed while reconnecting ${unsentKeys === 1 ? 'was' : 'were'} not sent.` : '';
  return reason === 'removed'
    ? `“${name}” was closed elsewhere (its session was removed), so its tab was closed.${unsent}`
    : `A second tab showing “${name}” was closed: one tab per session.${unsent}`;
}
