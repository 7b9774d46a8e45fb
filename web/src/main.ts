// Wires the page: token, client key, HostRuntime with the WebSocket transport, the workspace,
// the access check and the view. Nothing here decides connection lifecycle; the machines do.
import { DEFAULT_BACKOFF, backoffDelay } from './core/backoff';
import { systemClock } from './core/clock';
import { DisposableStore } from './core/disposable';
import { documentVisibility } from './core/page-visibility';
import { browserStorage } from './ui/storage';
import { DaemonClient } from './client/daemon-client';
import { HostRuntime } from './client/host-runtime';
import { webSocketTransportFactory, webSocketUrl, type WebSocketConstructor } from './client/websocket-transport';
import { workerWebSocket, type WorkerConstructor } from './client/worker-websocket';
import { PROTOCOL_VERSION } from './protocol/messages';
import { pairing } from './client/relay-crypto';
import { relayTransportFactory, relayWebSocketUrl } from './client/relay-transport';
import type { TransportFactory } from './client/transport';
import type { TokenControl } from './ui/token-button';
import type { StatusProbe } from './client/access-watch';
import { fill, h } from './ui/dom';
import { AccessWatch, fetchStatusProbe } from './client/access-watch';
import { AppView } from './ui/app-view';
import { renderNoToken } from './ui/no-token';
import { forgetToken, rememberToken, remembersToken, takeToken, type TokenStores } from './ui/token';
import { clientSessionKey } from './workspace/persistence';
import { Cockpit, type HostKind } from './workspace/cockpit';
import { fetchCockpitHosts, prefixedStore, type CockpitHostEntry } from './workspace/cockpit-hosts';
import type { KeyValueStore } from './workspace/terminal-port';
import { Workspace } from './workspace/workspace';

const root = document.getElementById('app')!;
const stores: TokenStores = { tab: browserStorage(() => sessionStorage), origin: browserStorage(() => localStorage) };
// Every socket of the page is read by a worker of its own (client/socket-worker-protocol.ts says why).
const socketImpl: WebSocketConstructor = typeof Worker === 'function'
  ? workerWebSocket(new URL('socket-worker.js', document.baseURI), Worker as unknown as WorkerConstructor)
  : WebSocket as unknown as WebSocketConstructor;
const clientKey = () => clientSessionKey(stores.origin, (n) => crypto.getRandomValues(new Uint8Array(n)));

let view: AppView | null = null;
let tabCounter = 0;
const visibility = documentVisibility(document);
/** The page's own subscriptions: they last as long as the page, owned like any other component's. */
const page = new DisposableStore();

// Served by a relay at /h/<hostId>/: the fragment holds the pairing secret, not a token.
const relayHost = /^(.*\/h\/[a-z2-7]{26})\/?$/.exec(location.pathname)?.[1] ?? null;

if (relayHost) {
  startThroughRelay(relayHost);
} else {
  const token = takeToken({
    hash: location.hash, pathname: location.pathname, search: location.search,
    replaceState: (url) => history.replaceState(history.state, '', url),
  }, stores);
  if (!token) {
    renderNoToken(root, !remembersToken(stores));
  } else {
    const cockpit = start(webSocketTransportFactory(webSocketUrl(location), token, socketImpl), {
      remembered: () => remembersToken(stores),
      forget: () => forgetToken(stores),
      remember: () => rememberToken(stores, token),
    }, fetchStatusProbe(fetch.bind(globalThis), token));
    // Every other host this daemon's user reaches (hosts.json), each connected from this page: the
    // credentials stay in this page's memory, the end-to-end crypto of relayed hosts runs here.
    void fetchCockpitHosts(fetch.bind(globalThis), token).then(async (hosts) => {
      // In the file's order (a relayed host's key is derived first): the groups show in that order.
      for (const host of hosts) await addHost(cockpit, host);
    }).catch((error: unknown) => console.warn(`limpet: cannot reach the other hosts: ${String(error)}`));
  }
  // A link pasted into this page's address bar changes only the fragment, which loads nothing:
  // start again with it (the page without a token, or one whose token was refused, waits for this).
  addEventListener('hashchange', () => {
    if (new URLSearchParams(location.hash.replace(/^#/, '')).has('token')) location.reload();
  }, { signal: page.signal });
}

/**
 * The page as served by a relay: the secret comes from the link's fragment (never sent to the
 * relay) and is kept for this tab's lifetime only (sessionStorage: a reload reconnects, a closed
 * tab forgets it); the URL loses the fragment at once. Never in the relay origin's lasting
 * storage, where any later page the relay serves could read it. This page trusts the relay to
 * serve honest code (docs/security.md); the daemon's own page does not.
 * The transport seals everything end to end; the rest of the page is the same as direct.
 */
function startThroughRelay(hostPath: string): void {
  const key = `limpet.relay.secret.${hostPath}`;
  // what an earlier version left in the origin's lasting storage goes, whatever happens next
  stores.origin.removeItem(key);
  const fromLink = location.hash.replace(/^#/, '');
  if (/^[A-Za-z0-9_-]{43}$/.test(fromLink)) {
    stores.tab.setItem(key, fromLink);
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  const secret = stores.tab.getItem(key);
  addEventListener('hashchange', () => /^#[A-Za-z0-9_-]{43}$/.test(location.hash) && location.reload(), { signal: page.signal });
  if (!secret) {
    fill(root, h('main.no-token', { 'data-testid': 'no-token' }, h('h1', {}, 'limpet'),
      h('p', {}, 'This page needs a pairing link: run ', h('code', {}, 'limpet pair'),
        ' on the machine where the daemon runs and open the link it prints here (', h('code', {}, '…/h/<host>#<secret>'), ').')));
    return;
  }
  const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
  pairing(secret).then((pair) => {
    // The relay cannot check a token: the probe tells "relay unreachable" (no answer) from "host
    // offline" (the relay answers it is not connected) from "host online".
    const probe: StatusProbe = () => fetch(`${hostPath}/online`, { cache: 'no-store' })
      .then((r) => r.json() as Promise<{ online?: boolean }>).then((j) => (j.online ? 0 : 'host_offline' as const), () => 'no_answer' as const);
    start(relayTransportFactory(relayWebSocketUrl(location, hostPath), pair, socketImpl, random), {
      remembered: () => stores.tab.getItem(key) !== null,
      forget: () => stores.tab.removeItem(key),
      remember: () => stores.tab.setItem(key, secret),
      kind: 'pairing',
    }, probe, 'through relay', 'relay');
  }, () => fill(root, h('main.no-token', { 'data-testid': 'no-token' }, h('h1', {}, 'limpet'),
    h('p', {}, 'The pairing link is damaged: open the link ', h('code', {}, 'limpet pair'), ' printed again.'))));
}

function hostRuntime(transportFactory: TransportFactory): HostRuntime {
  const key = clientKey();
  return new HostRuntime({
    clock: systemClock,
    createClient: (_role, name) => new DaemonClient({
      name,
      transportFactory,
      clock: systemClock,
      policy: { connectTimeoutMs: 8_000, retryDelay: (attempt) => backoffDelay(DEFAULT_BACKOFF, attempt, Math.random) },
      hello: () => ({ type: 'hello', clientSessionKey: key, protocol: PROTOCOL_VERSION, client: 'limpet-web/0.1.0' }),
      log: (line) => console.debug(`limpet ${line}`),
    }),
  });
}

function workspaceFor(runtime: HostRuntime, session: KeyValueStore, tabPrefix: string, own = true): Workspace {
  return new Workspace({
    openEverySessionOnFreshPage: own,
    runtime,
    clock: systemClock,
    visibility,
    session,
    newTabId: () => `${tabPrefix}t${Date.now().toString(36)}${(tabCounter++).toString(36)}`,
    createTerminal: (tabId) => view!.createTerminal(tabId),
  });
}

function start(transportFactory: TransportFactory, tokenControl: TokenControl, statusProbe: StatusProbe, path?: string,
  via: 'direct' | 'relay' = 'direct'): Cockpit {
  const runtime = hostRuntime(transportFactory);
  view = new AppView(root, {
    origin: location.origin,
    prefs: stores.origin,
    token: tokenControl,
    via,
    ...(path ? { path } : {}),
  });
  const workspace = workspaceFor(runtime, stores.tab, '');
  const cockpit = new Cockpit({ key: 'local', name: via === 'relay' ? 'this host' : 'this machine', kind: 'local', workspace });
  const access = new AccessWatch(runtime, statusProbe, (problem) => {
    view!.setAccess(problem);
    cockpit.setAccess('local', problem);
  });
  view.bind(cockpit);
  page.add(view);
  page.add(access);
  addEventListener('pagehide', () => cockpit.persist(), { signal: page.signal });
  page.add(visibility.subscribe((hidden) => hidden && cockpit.persist()));
  addEventListener('online', () => runtime.reconnectNow(), { signal: page.signal });
  (globalThis as { limpet?: unknown }).limpet = {
    snapshot: () => workspace.snapshot,
    cockpit: () => cockpit.snapshot,
    screen: (tabId: string) => view!.screenText(tabId),
    viewportTop: (tabId: string) => view!.viewportTop(tabId),
    terminal: (tabId: string) => view!.terminalOf(tabId),
    probe: () => runtime.probe(),
    access: () => access.problem,
  };
  runtime.start();
  return cockpit;
}

/** Connects one host of hosts.json from this page and adds it to the cockpit. */
async function addHost(cockpit: Cockpit, host: CockpitHostEntry): Promise<void> {
    let transport: TransportFactory;
  let kind: HostKind;
  if (host.kind === 'relay') {
    const url = new URL(host.url);
    const hostPath = url.pathname.replace(/\/+$/, '');
    transport = relayTransportFactory(relayWebSocketUrl(url, hostPath), await pairing(host.secret),
      socketImpl, (n) => crypto.getRandomValues(new Uint8Array(n)));
    kind = 'relay';
  } else {
    transport = webSocketTransportFactory(webSocketUrl(new URL(host.url)), host.token, socketImpl);
    kind = 'direct';
  }
  const runtime = hostRuntime(transport);
  const key = `h:${host.name}`;
  // Each host keeps its tabs under its own keys in this browser tab's storage.
  cockpit.add({ key, name: host.name, kind, workspace: workspaceFor(runtime, prefixedStore(stores.tab, `limpet.host.${host.name}.`), `${key}:`, false) });
  addEventListener('online', () => runtime.reconnectNow(), { signal: page.signal });
  runtime.start();
}
