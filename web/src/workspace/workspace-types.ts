// What the workspace shows the UI (its snapshot) and what it needs from its host (its options).
import type { Clock } from '../core/clock';
import type { PageVisibility } from '../core/page-visibility';
import type { HostRuntime, HostSnapshot } from '../client/host-runtime';
import type { SessionInfo } from '../protocol/messages';
import type { SessionRow } from '../sessions/session-rows';
import type { FlowLimits } from '../sessions/output-stream';
import type { SyncState } from '../sessions/session-list-sync';
import type { TabView } from './tab-session';
import type { KeyValueStore, TerminalPort } from './terminal-port';
import type { Toast } from './toasts';

export type Handshake = 'offline' | 'waiting' | 'recovering' | 'ready';

export interface DaemonInfo {
  instanceId: string;
  version: string;
  backend: string;
  degraded: string[];
}

export interface WorkspaceSnapshot {
  host: HostSnapshot;
  handshake: Handshake;
  daemon: DaemonInfo | null;
  sync: SyncState;
  tabs: TabView[];
  activeTabId: string | null;
  /** The daemon's sessions as the session list shows them (offline state, live viewer counts, tab names). */
  sessionRows: SessionRow[];
  /** Daemon sessions that no tab of this page holds. */
  unclaimed: SessionInfo[];
  warnings: string[];
  /** Passing messages: a tab closed elsewhere, keys refused, a failed rename or close. Each goes away by itself. */
  toasts: Toast[];
}

export interface SpawnOptions {
  command?: string[];
  cwd?: string;
  label?: string;
}

export interface WorkspaceOptions {
  runtime: HostRuntime;
  clock: Clock;
  /** Whether the page is hidden: while it is, no tab holds its session back (every tab flows live). */
  visibility: PageVisibility;
  session: KeyValueStore;
  createTerminal(tabId: string): TerminalPort;
  newTabId(): string;
  flowLimits?: FlowLimits;
  recoveringAfterMs?: number;
  /**
   * Whether a fresh page opens every running session in a tab on its first list (default true:
   * the page's own host). Another host's sessions open when a person chooses one.
   */
  openEverySessionOnFreshPage?: boolean;
}
