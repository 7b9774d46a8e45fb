// Wires the page: token, client key, HostRuntime with the WebSocket transport, the workspace,
// and the view. Nothing here decides connection lifecycle; the machines do.
import { DEFAULT_BACKOFF, backoffDelay } from './core/backoff';
import { systemClock } from './core/clock';
import { documentVisibility } from './core/page-visibility';
import { DaemonClient } from './client/daemon-client';
import { HostRuntime } from './client/host-runtime';
import { webSocketTransportFactory, webSocketUrl, type WebSocketConstructor } from './client/websocket-transport';
import { PROTOCOL_VERSION } from './protocol/messages';
import { AppView } from './ui/app-view';
import { h, fill } from './ui/dom';
import { takeToken } from './ui/token';
import { clientSessionKey } from './workspace/persistence';
import { Workspace } from './workspace/workspace';

const root = document.getElementById('app')!;
const token = takeToken({
  hash: location.hash, pathname: location.pathname, search: location.search,
  replaceState: (url) => history.replaceState(history.state, '', url),
}, sessionStorage);

if (!token) {
  fill(root, h('div.no-token', {}, h('h1', {}, 'limpet'),
    h('p', {}, 'Open the link the daemon printed when it started (it ends in #token=…).'),
    h('p', {}, 'Run ', h('code', {}, 'limpet status'), ' to see it again.')));
} else {
  start(token);
}

function start(token: string): void {
  const key = clientSessionKey(localStorage, (n) => crypto.getRandomValues(new Uint8Array(n)));
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
  const view = new AppView(root);
  const visibility = documentVisibility(document);
  let tabCounter = 0;
  const workspace = new Workspace({
    runtime,
    clock: systemClock,
    visibility,
    session: sessionStorage,
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
  };
  runtime.start();
}
