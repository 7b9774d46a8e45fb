// Why the page cannot connect. A browser hides the HTTP status of a refused WebSocket upgrade (the
// socket just closes with 1006), so when an attempt fails before it opened, the page asks the REST
// API with the same token: 401 means the token is wrong (retrying cannot help: the page stops and
// says to run `limpet open`), no answer means the daemon is unreachable (the page keeps retrying).
import type { ConnectionState } from '../client/connection-machine';
import type { HostSnapshot } from '../client/host-runtime';

export type AccessProblem = 'wrong_token' | 'unreachable';

/** The REST answer to a token check: an HTTP status, or no answer at all. */
export type StatusAnswer = number | 'no_answer';

export type StatusProbe = () => Promise<StatusAnswer>;

/** What an answer means; null when the daemon answered and took the token. */
export function problemFrom(answer: StatusAnswer): AccessProblem | null {
  if (answer === 'no_answer') return 'unreachable';
  return answer === 401 ? 'wrong_token' : null;
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
  subscribe(listener: (snapshot: HostSnapshot) => void): () => void;
  stop(): void;
}

export class AccessWatch {
  private checkedAttempt = -1;
  private checking = false;
  private current: AccessProblem | null = null;

  constructor(
    private readonly runtime: WatchedRuntime,
    private readonly probe: StatusProbe,
    private readonly onChange: (problem: AccessProblem | null) => void,
  ) {
    runtime.subscribe((snapshot) => this.onHost(snapshot));
  }

  get problem(): AccessProblem | null {
    return this.current;
  }

  private onHost(snapshot: HostSnapshot): void {
    if (snapshot.status === 'online') {
      this.checkedAttempt = -1;
      this.set(null);
      return;
    }
    if (this.checking || !shouldCheck(snapshot.connection, this.checkedAttempt)) return;
    this.checkedAttempt = snapshot.connection!.attempt;
    this.checking = true;
    void this.probe().then((answer) => {
      this.checking = false;
      const now = this.runtime.snapshot.status;
      // Connected meanwhile, or stopped by a previous finding: the answer is old news.
      if (now === 'online' || now === 'stopped') return;
      const problem = problemFrom(answer);
      if (problem === 'wrong_token') this.runtime.stop();
      this.set(problem);
    });
  }

  private set(problem: AccessProblem | null): void {
    if (problem === this.current) return;
    this.current = problem;
    this.onChange(problem);
  }
}
