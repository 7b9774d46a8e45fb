// The banners under the top bar: why the page cannot connect (wrong token or unreachable daemon,
// each saying what to run), recovery in progress, degraded modes, a refused client.
import type { WorkspaceSnapshot } from '../workspace/workspace';
import type { AccessProblem } from './access-watch';
import { h } from './dom';

export function banners(s: WorkspaceSnapshot, access: AccessProblem | null, origin: string): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (access === 'wrong_token') {
    out.push(h('div.banner.error', { role: 'alert', 'data-testid': 'banner-wrong-token' },
      h('strong', {}, 'Wrong token. '),
      `The daemon at ${origin} refused this page's token, so the page stopped trying. Run `,
      h('code', {}, 'limpet open'), ' on the machine where the daemon runs: it opens limpet with the right token, or prints the link to copy.'));
  } else if (access === 'unreachable') {
    out.push(h('div.banner.warn', { role: 'alert', 'data-testid': 'banner-unreachable' },
      h('strong', {}, 'Daemon unreachable. '),
      `Nothing answers at ${origin}; the page keeps trying. If the daemon stopped, start it again with `,
      h('code', {}, 'limpet daemon'), '.'));
  } else if (access === 'upgrade_refused') {
    out.push(h('div.banner.error', { role: 'alert', 'data-testid': 'banner-upgrade-refused' },
      h('strong', {}, 'Connection refused. '),
      `The daemon answers at ${origin} and takes the token, but refused this page's WebSocket. If you reach it through a proxy `
      + 'or by another name than the one it listens on, start it with ', h('code', {}, `--allow-origin ${origin}`),
      ' (and let the proxy pass WebSockets). The page keeps trying.'));
  }
  if (s.handshake === 'recovering') {
    out.push(h('div.banner.info', { 'data-testid': 'banner-recovering' }, 'The daemon is recovering its sessions after a restart; your tabs reconnect as soon as it is done.'));
  }
  for (const line of [...(s.daemon?.degraded ?? []), ...s.warnings]) {
    out.push(h('div.banner.warn', { 'data-testid': 'banner-degraded' }, `Degraded: ${line}`));
  }
  if (s.host.connection?.reason?.kind === 'rejected') {
    out.push(h('div.banner.error', {}, `The daemon refused this client: ${s.host.connection.reason.reason || 'protocol mismatch'}. Reload the page.`));
  }
  return out;
}
