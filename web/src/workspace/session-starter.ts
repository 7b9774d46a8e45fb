// Turns a person's request for a session (+ Terminal, Restart, New) into at most one
// spawn_session. The tab records the request as `sent` before it goes out; when the answer is
// lost with the connection the outcome is unknown, and the planner leaves it to a person (the
// program may be running: starting it again could run `make deploy` twice).
import { RequestError } from '../client/daemon-client';
import { StaleGenerationError, type HostRuntime } from '../client/host-runtime';
import type { SessionInfo } from '../protocol/messages';
import { startFailedOffer, startUnconfirmedOffer } from '../sessions/tab-messages';
import { defaultLabel } from '../sessions/tab-name';
import { describeError } from './describe-error';
import { saveDefaultProgram } from './persistence';
import type { TabSession } from './tab-session';
import type { KeyValueStore } from './terminal-port';

export interface StarterHost {
  readonly runtime: HostRuntime;
  readonly session: KeyValueStore;
  /** Whether the tab is still open. */
  isOpen(tab: TabSession): boolean;
  /** The daemon that answers, once known. */
  daemonInstanceId(): string | null;
  /**
   * The size a viewer of this page measured (every tab's terminal fills the same area), or null
   * while none was ever shown: for a tab that asks for its session before it is first shown.
   */
  pageViewerSize(): { cols: number; rows: number } | null;
  /** The tab is bound to its new session: attach it. */
  started(tab: TabSession): void;
  /** A session started for a tab that was closed meanwhile: closing the tab asked to end it. */
  orphaned(sessionId: string): void;
  changed(): void;
}

export class SessionStarter {
  constructor(private readonly host: StarterHost) {}

  start(tab: TabSession): void {
    // The size of the viewer the person asked in. A tab just opened (+ Terminal, + Command) asks
    // before it is first shown: it will fill the same area as the page's other tabs, so it starts
    // at their size, never at the terminal's default that the program would first draw at.
    const { cols, rows } = tab.terminal.viewerSize() ?? this.host.pageViewerSize() ?? tab.terminal.size();
    const { command, cwd } = tab.record;
    const label = tab.personLabel();
    tab.startSent();
    this.host.changed();
    this.host.runtime.request<{ type: 'spawn_result'; session: SessionInfo }>({
      type: 'spawn_session', cols, rows, ...(command ? { command } : {}), ...(cwd ? { cwd } : {}), ...(label ? { label } : {}),
    }).then((reply) => {
      if (!this.host.isOpen(tab)) return this.host.orphaned(reply.session.id);
      const daemon = this.host.daemonInstanceId();
      if (!daemon) return;
      if (!command) saveDefaultProgram(this.host.session, defaultLabel(reply.session.command));
      tab.bindSession(reply.session, daemon);
      this.host.started(tab);
    }, (error: unknown) => {
      if (!this.host.isOpen(tab) || error instanceof StaleGenerationError) return; // the next plan says "unconfirmed"
      const failure = error instanceof RequestError ? error.failure : null;
      if (failure?.kind === 'not_connected') return tab.startNotSent(); // never left the page: the next connection sends it
      if (failure?.kind === 'disconnected') return; // sent, answer lost: the next plan says "unconfirmed"
      if (failure?.kind === 'timeout') return tab.showOffer(startUnconfirmedOffer());
      tab.showOffer(startFailedOffer(describeError(error)));
    });
  }
}
