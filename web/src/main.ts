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
import { AccessWatch, fetchStatusProbe } from './ui/access-watch';
import { AppView } from './ui/app-view';
import { renderNoToken } from './ui/no-token';
import { forgetToken, rememberToken, remembersToken, takeToken, type TokenStores } from './ui/token';
import { clientSessionKey } from './workspace/persistence';
import { Workspace } from './workspace/workspace';

const root = document.getElementById('app')!;
const stores: TokenStores = { tab: browserStorage(() => sessionStorage), origin: browserStorage(() => localStorage) };
const token = takeToken({
  hash: location.hash, pathname: location.pathname, search: location.search,
  replaceState: (url) => history.replaceState(history.state, '', url),
}, stores);

if (!token) {
  renderNoToken(root, !remembersToken(stores));
} else {
  start(token);
}
// A link pasted into this page's address bar changes only the fragment, which loads nothing:
// start again with it (the page without a token, or one whose token was refused, waits for this).
addEventListener('hashchange', () => {
  if (new URLSearchParams(location.hash.replace(/^#/, '')).has('token')) location.reload();
});

function start(token: string): void {
  const key = clientSessionKey(stores.origin, (n) => crypto.getRandomValues(new Uint8Array(n)));
  const transportFactory = webSocketTransportFactory(webSocketUrl(location), token, WebSocket as unknown as WebSocketConstructor);
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
    token: {
      remembered: () => remembersToken(stores),
      forget: () => forgetToken(stores),
      remember: () => rememberToken(stores, token),
    },
  });
  const access = new AccessWatch(runtime, fetchStatusProbe(fetch.bind(globalThis), token), (problem) => view.setAccess(problem));
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
  addEventListener('pagehide', () => workspace.persist(true));
  visibility.subscribe((hidden) => hidden && workspace.persist(true));
  addEventListener('online', () => runtime.reconnectNow());
  (globalThis as { limpet?: unknown }).limpet = {
    snapshot: () => workspace.snapshot,
    screen: (tabId: string) => view.screenText(tabId),
    probe: () => runtime.probe(),
    access: () => access.problem,
  };
  runtime.start();
}
