// Carries out the attach planner's steps on the tabs (see attach-planner.ts). Only `start`
// spawns, and only a start a person asked for; everything else attaches, closes or explains.
import type { TabStep } from '../sessions/attach-planner';
import {
  attachFailedOffer, noLongerExistsOffer, noSessionOffer, recoverableOffer, startUnconfirmedOffer,
} from '../sessions/tab-messages';
import type { TabSession } from './tab-session';

export interface StepHost {
  tabById(tabId: string): TabSession | undefined;
  /** Whether a person sees the tab now (the active one). */
  isShown(tab: TabSession): boolean;
  attach(tab: TabSession, since: number | undefined): void;
  /** Sends the start a person asked for. */
  start(tab: TabSession): void;
  /** The session went away elsewhere (or another tab holds it): close the tab and say so. */
  close(tab: TabSession, reason: 'removed' | 'duplicate'): void;
}

export function carryOut(step: TabStep, host: StepHost): void {
  const tab = host.tabById(step.tabId);
  if (!tab) return;
  switch (step.kind) {
    case 'attach':
    case 'show_exit':
      tab.update({ session: step.session });
      return host.attach(tab, step.since);
    case 'attach_when_shown':
      // Never revived by a plan (a reload, a reconnect): the tab says what happened and offers
      // Restart; a person who switches to it later opens it (Workspace.activate), which revives it.
      tab.update({ session: step.session });
      tab.awaitingShow = !host.isShown(tab);
      return tab.showOffer(recoverableOffer(step.session));
    case 'confirm':
      return host.attach(tab, tab.resumeOffset());
    case 'refused':
      tab.update({ session: step.session });
      return tab.showOffer(step.session.state === 'recoverable' ? recoverableOffer(step.session)
        : attachFailedOffer('the daemon has no such session running'));
    case 'close':
      return host.close(tab, step.reason);
    case 'no_longer_exists':
      return tab.showOffer(noLongerExistsOffer());
    case 'start':
      return host.start(tab);
    case 'start_unconfirmed':
      return tab.showOffer(startUnconfirmedOffer());
    case 'idle':
      if (!tab.view.offer) tab.showOffer(noSessionOffer());
      return;
  }
}
