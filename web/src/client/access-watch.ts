// Why the page cannot connect. A browser hides the HTTP status of a refused WebSocket upgrade (the
// socket just closes with 1006), so when an attempt fails before it opened, the page asks the REST
// API with the same token: 401 means the token is wrong (retrying cannot help: the page stops and
// says to run `limpet open`), no answer means the daemon is unreachable (the page keeps retrying).
// A daemon that answers and takes the token but refused the upgrade itself refused the page's
// origin (a reverse proxy, another host name: `--allow-origin`), or a proxy dropped the upgrade.
import type { Disposable } from '../core/disposable';
import type { ConnectionState, DisconnectReason } from './connection-machine';
import type { HostSnapshot } from './host-runtime';

/**
 * `unreachable`: nothing answers at the page's origin (the daemon, or the relay that served the
 * page); `host_offline`: the relay that served the page answers, but the host is not connected to it.
 */
export type AccessProblem = 'wrong_token' | 'unreachable' | 'upgrade_refused' | 'host_offline';

/**
 * The REST answer to a token check: an HTTP status, no answer at all, or (a relay's page) the
 * relay's word that the host is not connected.
 */
export type StatusAnswer = number | 'no_answer' | 'host_offline';

export type StatusProbe = () => Promise<StatusAnswer>;

/**
 * What the answer means after an attempt that failed the way `reason` says. Only a refusal (the
 * socket closed before it opened) blames the upgrade; after a timeout the daemon may just be slow.
 */
export function problemFrom(answer: StatusAnswer, reason: DisconnectReason['kind']): AccessProblem | null {
  if (answer === 'no_answer') return 'unreachable';
  if (answer === 401) return 'wrong_token';
  if (answer === 'host_offline') return 'host_offline';
  return answer >= 200 && answer < 300 && reason === 'connect_failed' ? 'upgrade_refused' : null;
}

/** Whether a connection that is down should be checked: once per failed attempt that never opened. */
export function shouldCheck(connection: ConnectionState | null, checkedAttempt: number): boolean {
  if (!connection || connection.status !== 'disconnected' || connection.attempt === checkedAttempt) return false;
  const kind = connection.reason?.kind;
  return kind === 'connect_failed' || kind === 'connect_timeout' || kind === 'transport_error';
}

/** `GET /api/status` on the page's own origin with the token, as the check. */
export function fetchStatusProbe(fetchImpl: typeof fetch, token: string): StatusProbe {
  return async () => {
    try {
      const response = await fetchImpl('/api/status', { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
      return response.status;
    } catch {
      return 'no_answer';
    }
  };
}

export interface WatchedRuntime {
  readonly snapshot: HostSnapshot;
  subscribe(listener: (snapshot: HostSnapshot) => void): Disposable;
  stop(): void;
}

export class AccessWatch implements Disposable {
  private readonly subscription: Disposable;
  private checkedAttempt = -1;
  /** Refused upgrades found in a row: one alone may be a daemon that came up between the two requests. */
  private refusals = 0;
  private checking = false;
  private current: AccessProblem | null = null;

  constructor(
    private readonly runtime: WatchedRuntime,
    private readonly probe: StatusProbe,
    private readonly onChange: (problem: AccessProblem | null) => void,
  ) {
    this.subscription = runtime.subscribe((snapshot) => this.onHost(snapshot));
  }

  /** Stops watching: the runtime's later snapshots are not looked at. */
  dispose(): void {
    this.subscription.dispose();
  }

  get problem(): AccessProblem | null {
    return this.current;
  }

  private onHost(snapshot: HostSnapshot): void {
    if (snapshot.status === 'online') {
      this.checkedAttempt = -1;
      this.refusals = 0;
      this.set(null);
      return;
    }
    if (this.checking || !shouldCheck(snapshot.connection, this.checkedAttempt)) return;
    this.checkedAttempt = snapshot.connection!.attempt;
    const reason = snapshot.connection!.reason!.kind;
    this.checking = true;
    void this.probe().then((answer) => {
      this.checking = false;
      const now = this.runtime.snapshot.status;
      // Connected meanwhile, or stopped by a previous finding: the answer is old news.
      if (now === 'online' || now === 'stopped') return;
      const problem = problemFrom(answer, reason);
      this.refusals = problem === 'upgrade_refused' ? this.refusals + 1 : 0;
      if (problem === 'wrong_token') this.runtime.stop();
      if (problem !== 'upgrade_refused' || this.refusals >= 2) this.set(problem);
    });
  }

  private set(problem: AccessProblem | null): void {
    if (problem === this.current) return;
    this.current = problem;
    this.onChange(problem);
  }
}
