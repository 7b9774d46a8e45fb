// Words for the connection indicator and banners, from machine snapshots only.
import type { WorkspaceSnapshot } from '../workspace/workspace';
import type { AccessProblem } from '../client/access-watch';

export type IndicatorTone = 'ok' | 'busy' | 'down';

export function indicator(snapshot: WorkspaceSnapshot, access: AccessProblem | null = null, via: 'direct' | 'relay' = 'direct',
  online = true): { tone: IndicatorTone; text: string } {
  const { host, handshake } = snapshot;
  if (access === 'wrong_token') return { tone: 'down', text: 'token refused' };
  if (!online && host.status !== 'online') return { tone: 'down', text: 'no network — waiting' };
  if (host.status === 'online') {
    if (handshake === 'ready') return { tone: 'ok', text: 'connected' };
    return { tone: 'busy', text: handshake === 'recovering' ? 'daemon recovering…' : 'connecting…' };
  }
  if (host.status === 'stopped') return { tone: 'down', text: 'stopped' };
  const connection = host.connection;
  if (connection?.status === 'disconnected') {
    if (connection.reason?.kind === 'rejected') return { tone: 'down', text: 'rejected by the daemon' };
    if (connection.retryInMs !== null && host.everOnline) {
      return { tone: 'down', text: `offline — reconnecting (attempt ${connection.attempt})` };
    }
    if (access === 'unreachable') return { tone: 'down', text: `${via === 'relay' ? 'relay' : 'daemon'} unreachable — retrying` };
    if (access === 'host_offline') return { tone: 'down', text: 'host offline — retrying' };
    if (access === 'upgrade_refused') return { tone: 'down', text: 'connection refused — retrying' };
    return { tone: 'down', text: host.everOnline ? 'offline' : 'cannot reach the daemon' };
  }
  return { tone: 'busy', text: host.everOnline ? 'reconnecting…' : 'connecting…' };
}

export function commandText(command: string[]): string {
  return command.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** Splits "vim 'my file.txt' -R" into argv, honouring single and double quotes and backslashes. */
export function parseArgv(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) current += line[++i];
      else current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      started = true;
    } else if (c === '\\' && i + 1 < line.length) {
      current += line[++i];
      started = true;
    } else if (/\s/.test(c)) {
      if (started) args.push(current);
      current = '';
      started = false;
    } else {
      current += c;
      started = true;
    }
  }
  if (started) args.push(current);
  return args;
}
