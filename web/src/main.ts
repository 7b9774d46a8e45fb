// Wires the page: token, client key, HostRuntime with the WebSocket transport, the workspace,
// the access check and the view. Nothing here decides connection lifecycle; the machines do.
import { DEFAULT_BACKOFF, backoffDelay } from './core/backoff';
import { systemClock } from './core/clock';
import { documentVisibility } from './core/page-visibility';
import { browserStorage } from './ui/storage';
import { DaemonClient } from './client/daemon-client';
import { HostRuntime } from './client/host-runtime';
import { webSocketTransportFactory, webSocketUrl, type WebSocketConstructor } from './client/websocket-transport';
import { PROTOCOL_VERSION } from './protocol/messages';
import { pairing } from './client/relay-crypto';
import { relayTransportFactory, relayWebSocketUrl } from './client/relay-transport';
import type { TransportFactory } from './client/transport';
import type { TokenControl } from './ui/token-button';
import type { StatusProbe } from './ui/access-watch';
import { fill, h } from './ui/dom';
import { AccessWatch, fetchStatusProbe } from './ui/access-watch';
import { AppView } from './ui/app-view';
import { renderNoToken } from './ui/no-token';
import { forgetToken, rememberToken, remembersToken, takeToken, type TokenStores } from './ui/token';
import { clientSessionKey } from './workspace/persistence';
import { Workspace } from './workspace/workspace';

const root = document.getElementById('app')!;
const stores: TokenStores = { tab: browserStorage(() => sessionStorage), origin: browserStorage(() => localStorage) };
// Served by a relay at /h/<hostId>/ (issue 15): the fragment holds the pairing secret, not a token.
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
    start(webSocketTransportFactory(webSocketUrl(location), token, WebSocket as unknown as WebSocketConstructor), {
      remembered: () => remembersToken(stores),
      forget: () => forgetToken(stores),
      remember: () => rememberToken(stores, token),
    }, fetchStatusProbe(fetch.bind(globalThis), token));
  }
  // A link pasted into this page's address bar changes only the fragment, which loads nothing:
  // start again with it (the page without a token, or one whose token was refused, waits for this).
  addEventListener('hashchange', () => {
    if (new URLSearchParams(location.hash.replace(/^#/, '')).has('token')) location.reload();
  });
}

/**
 * The page as served by a relay: the secret comes from the link's fragment (never sent to the
 * relay) and is kept in this origin's storage for this host; the URL loses the fragment at once.
 * The transport seals everything end to end; the rest of the page is the same as direct.
 */
function startThroughRelay(hostPath: string): void {
  const key = `limpet.relay.secret.${hostPath}`;
  const fromLink = location.hash.replace(/^#/, '');
  if (/^[A-Za-z0-9_-]{43}$/.test(fromLink)) {
    stores.origin.setItem(key, fromLink);
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  const secret = stores.origin.getItem(key);
  addEventListener('hashchange', () => /^#[A-Za-z0-9_-]{43}$/.test(location.hash) && location.reload());
  if (!secret) {
    fill(root, h('main.no-token', { 'data-testid': 'no-token' }, h('h1', {}, 'limpet'),
      h('p', {}, 'This page needs a pairing link: run ', h('code', {}, 'limpet pair'),
        ' on the machine where the daemon runs and open the link it prints here (', h('code', {}, '…/h/<host>#<secret>'), ').')));
    return;
  }
  const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
  pairing(secret).then((pair) => {
    // The relay cannot check a token: the probe only tells "host offline or relay unreachable" (no answer) from "host online".
    const probe: StatusProbe = () => fetch(`${hostPath}/online`, { cache: 'no-store' })
      .then((r) => r.json() as Promise<{ online?: boolean }>).then((j) => (j.online ? 0 : 'no_answer' as const), () => 'no_answer' as const);
    start(relayTransportFactory(relayWebSocketUrl(location, hostPath), pair, WebSocket as unknown as WebSocketConstructor, random), {
      remembered: () => stores.origin.getItem(key) !== null,
      forget: () => stores.origin.removeItem(key),
      remember: () => stores.origin.setItem(key, secret),
      kind: 'pairing',
    }, probe, 'through relay');
  }, () => fill(root, h('main.no-token', { 'data-testid': 'no-token' }, h('h1', {}, 'limpet'),
    h('p', {}, 'The pairing link is damaged: open the link ', h('code', {}, 'limpet pair'), ' printed again.'))));
}

function start(transportFactory: TransportFactory, tokenControl: TokenControl, statusProbe: StatusProbe, path?: string): void {
  const key = clientSessionKey(stores.origin, (n) => crypto.getRandomValues(new Uint8Array(n)));
  const runtime = new HostRuntime({
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
  const view = new AppView(root, {
    origin: location.origin,
    prefs: stores.origin,
    token: tokenControl,
    ...(path ? { path } : {}),
  });
  const access = new AccessWatch(runtime, statusProbe, (problem) => view.setAccess(problem));
  const visibility = documentVisibility(document);
  let tabCounter = 0;
  const workspace = new Workspace({
    runtime,
    clock: systemClock,
    visibility,
    session: stores.tab,
    newTabId: () => `t${Date.now().toString(36)}${(tabCounter++).toString(36)}`,
    createTerminal: (tabId) => view.createTerminal(tabId),
  });
  view.bind(workspace);
  addEventListener('pagehide', () => workspace.persist());
  visibility.subscribe((hidden) => hidden && workspace.persist());
  addEventListener('online', () => runtime.reconnectNow());
  (globalThis as { limpet?: unknown }).limpet = {
    snapshot: () => workspace.snapshot,
    screen: (tabId: string) => view.screenText(tabId),
    terminal: (tabId: string) => view.terminalOf(tabId),
    probe: () => runtime.probe(),
    access: () => access.problem,
  };
  runtime.start();
}
