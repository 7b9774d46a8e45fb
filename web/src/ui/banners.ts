// The banners over the top of the work area. They lie over the page (they never change its height,
// so typing never pushes the top bar away) and each names the part that is down (this device's
// network, the daemon, the relay, the host behind the relay) and what to do about it on this
// device. Also: recovery in progress, degraded modes, a refused client.
import type { WorkspaceSnapshot } from '../workspace/workspace';
import type { AccessProblem } from '../client/access-watch';
import { h } from './dom';

export interface BannerContext {
  /** The page's origin: the daemon's, or the relay's for a page a relay served. */
  origin: string;
  /** How the page reaches its host: its own daemon directly, or through the relay that served it. */
  via: 'direct' | 'relay';
  /** Whether the device has a network (navigator.onLine). */
  online: boolean;
}

export function banners(s: WorkspaceSnapshot, access: AccessProblem | null, context: BannerContext): HTMLElement[] {
  const out: HTMLElement[] = [];
  const { origin, via } = context;
  if (!context.online) {
    out.push(h('div.banner.warn', { role: 'alert', 'data-testid': 'banner-network', 'data-part': 'network' },
      h('strong', {}, 'No network. '), 'This device is offline (check its Wi-Fi or mobile data); the page reconnects by itself once it is back.'));
  } else if (access === 'wrong_token') {
    out.push(h('div.banner.error', { role: 'alert', 'data-testid': 'banner-wrong-token', 'data-part': 'daemon' },
      h('strong', {}, 'Wrong token. '),
      `The daemon at ${origin} refused this page's token, so the page stopped trying. Run `,
      h('code', {}, 'limpet open'), ' on the machine where the daemon runs: it opens limpet with the right token, or prints the link to copy.'));
  } else if (access === 'unreachable' && via === 'relay') {
    out.push(h('div.banner.warn', { role: 'alert', 'data-testid': 'banner-unreachable', 'data-part': 'relay' },
      h('strong', {}, 'Relay unreachable. '),
      `The relay at ${origin} does not answer; the page keeps trying. Nothing on this device needs doing: the relay's operator `
      + 'starts it again (on the relay host, ', h('code', {}, 'limpet relay'), ').'));
  } else if (access === 'unreachable') {
    out.push(h('div.banner.warn', { role: 'alert', 'data-testid': 'banner-unreachable', 'data-part': 'daemon' },
      h('strong', {}, 'Daemon unreachable. '),
      `Nothing answers at ${origin}; the page keeps trying. If the daemon stopped, start it again on this machine with `,
      h('code', {}, 'limpet daemon'), '.'));
  } else if (access === 'host_offline') {
    out.push(h('div.banner.warn', { role: 'alert', 'data-testid': 'banner-host-offline', 'data-part': 'host' },
      h('strong', {}, 'Host offline. '),
      `The relay at ${origin} answers, but the host of this pairing is not connected to it; the page keeps trying. On the host, `,
      h('code', {}, 'limpet status'), ' says why (its relay line); its daemon must run with ', h('code', {}, '--relay'), '.'));
  } else if (access === 'upgrade_refused') {
    out.push(h('div.banner.error', { role: 'alert', 'data-testid': 'banner-upgrade-refused', 'data-part': 'daemon' },
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
