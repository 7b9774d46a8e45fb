// The cockpit: every host this page reaches, each with its own connection (HostRuntime) and its own
// Workspace, shown as one set of tabs and one session list. The first host is the page's own daemon
// (or, on a page a relay served, the one host of the pairing); the others come from the daemon's
// hosts.json, reached directly or through a relay with the end-to-end crypto in this page.
// Workspaces know nothing of each other: this class routes each intent to the workspace that holds
// the tab, keeps which host is on show, and joins their snapshots. Tab ids are unique across hosts
// (each host's workspace makes its own with a prefix), so a tab id alone finds its host.
import { Listeners } from '../core/listeners';
import { DisposableStore, type Disposable } from '../core/disposable';
import type { AccessProblem } from '../client/access-watch';
import type { TabView } from './tab-session';
import type { SpawnOptions, Workspace, WorkspaceSnapshot } from './workspace';

export type HostKind = 'local' | 'direct' | 'relay';

export interface CockpitHostOptions {
  /** Unique in the page; the page's own daemon is `local`. */
  key: string;
  /** What the person calls it (hosts.json's name; "this machine" for the page's own daemon). */
  name: string;
  kind: HostKind;
  workspace: Workspace;
}

export interface HostView {
  key: string;
  name: string;
  kind: HostKind;
  snapshot: WorkspaceSnapshot;
  /** What the access check found for this host (only the page's own daemon is checked). */
  access: AccessProblem | null;
}

export interface CockpitTab extends TabView {
  hostKey: string;
}

export interface CockpitSnapshot {
  /** In the order they were added; the first is the page's own. */
  hosts: HostView[];
  /** Every host's tabs, host by host. */
  tabs: CockpitTab[];
  /** The tab on show (it belongs to `activeHost`), or null. */
  activeTabId: string | null;
  activeHost: string;
}

interface Host extends CockpitHostOptions {
  access: AccessProblem | null;
}

export class Cockpit {
  private readonly hosts: Host[] = [];
  private activeHost: string;
  private current: CockpitSnapshot;
  private readonly listeners = new Listeners<CockpitSnapshot>();
  /** Its hosts' workspaces, listened to. */
  private readonly subscriptions = new DisposableStore();

  constructor(first: CockpitHostOptions) {
    this.activeHost = first.key;
    this.current = { hosts: [], tabs: [], activeTabId: null, activeHost: first.key };
    this.add(first);
  }

  /** Adds a host; its tabs and sessions show from now on. Its key must be new. */
  add(host: CockpitHostOptions): void {
    if (this.hosts.some((h) => h.key === host.key)) throw new Error(`host ${host.key} added twice`);
    this.hosts.push({ ...host, access: null });
    this.subscriptions.add(host.workspace.subscribe(() => this.changed()));
    this.changed();
  }

  setAccess(key: string, access: AccessProblem | null): void {
    const host = this.host(key);
    if (!host || host.access === access) return;
    host.access = access;
    this.changed();
  }

  get snapshot(): CockpitSnapshot {
    return this.current;
  }

  subscribe(listener: (snapshot: CockpitSnapshot) => void): Disposable {
    return this.listeners.subscribe(listener);
  }

  /** Stops listening to its hosts' workspaces (they are their creator's to dispose). */
  dispose(): void {
    this.subscriptions.dispose();
    this.listeners.clear();
  }

  /** The page's own host's workspace (new terminals start there). */
  get primary(): Workspace {
    return this.hosts[0]!.workspace;
  }

  /** The workspace that holds `tabId`, if any. */
  workspaceOf(tabId: string): Workspace | null {
    return this.hostOf(tabId)?.workspace ?? null;
  }

  // ---- intents ------------------------------------------------------------------------------

  activate(tabId: string): void {
    const host = this.hostOf(tabId);
    if (!host) return;
    this.activeHost = host.key;
    host.workspace.activate(tabId);
    this.changed();
  }

  /** Opens a session of `hostKey` in a tab (or shows the tab that has it). */
  openSession(hostKey: string, sessionId: string): void {
    const host = this.host(hostKey);
    if (!host) return;
    this.activeHost = host.key;
    host.workspace.openSession(sessionId);
    this.changed();
  }

  /**
   * A new session, always on the page's own host: a program never starts on another machine
   * because its tab happened to be on show (other hosts' sessions are opened from the list).
   */
  newTerminal(spawn: SpawnOptions = {}): string {
    const host = this.hosts[0]!;
    this.activeHost = host.key;
    const tabId = host.workspace.newTerminal(spawn);
    this.changed();
    return tabId;
  }

  persist(): void {
    for (const host of this.hosts) host.workspace.persist();
  }

  // ---- snapshots ----------------------------------------------------------------------------

  private changed(): void {
    const hosts = this.hosts.map((h) => ({ key: h.key, name: h.name, kind: h.kind, snapshot: h.workspace.snapshot, access: h.access }));
    const tabs = hosts.flatMap((h) => h.snapshot.tabs.map((t) => ({ ...t, hostKey: h.key })));
    // The host a person chose shows while it has a tab; otherwise the first host that has one. The
    // choice itself stays: a workspace reports changes while it builds a tab, before it is active.
    const shown = hosts.find((h) => h.key === this.activeHost && h.snapshot.activeTabId !== null)
      ?? hosts.find((h) => h.snapshot.activeTabId !== null);    this.current = { hosts, tabs, activeTabId: shown?.snapshot.activeTabId ?? null, activeHost: shown?.key ?? this.activeHost };
    this.listeners.emit(this.current);
  }

  private host(key: string): Host | undefined {
    return this.hosts.find((h) => h.key === key);
  }

  private hostOf(tabId: string): Host | undefined {
    return this.hosts.find((h) => h.workspace.snapshot.tabs.some((t) => t.tabId === tabId));
  }
}
