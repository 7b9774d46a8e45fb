// The client protocol, version 1 (docs/protocol.md). Only what the web UI reads or sends is typed;
// unknown fields and event types are ignored, as the protocol requires.

export const PROTOCOL_VERSION = 1;

export type SessionState = 'starting' | 'running' | 'exited' | 'recoverable';

export interface SessionInfo {
  id: string;
  label: string;
  command: string[];
  cwd: string;
  state: SessionState;
  pid: number | null;
  exit_code: number | null;
  exit_signal: string | null;
  created_at: string;
  cols: number;
  rows: number;
  end_offset: number;
  attached: number;
}

export interface InitialState {
  type: 'initial_state';
  protocol: number;
  daemon_instance_id: string;
  version: string;
  backend: string;
  degraded: string[];
  sessions: SessionInfo[];
  recovery?: Record<string, number>;
  client_session?: { resumed: boolean; attachments: { session_id: string; offset: number; read_only: boolean }[] };
  warnings?: { code: string; message: string }[];
}

export interface AttachResult {
  type: 'attach_result';
  req_id?: string;
  session_id: string;
  session: SessionInfo;
  replay_from: number;
  end_offset: number;
  truncated: boolean;
  snapshot: boolean;
  read_only: boolean;
}

export interface CommandError {
  type: 'command_error';
  req_id?: string;
  command: string | null;
  session_id?: string;
  code: string;
  message: string;
  retryable: boolean;
}

export type ServerEvent =
  | InitialState
  | AttachResult
  | CommandError
  | { type: 'session_list'; req_id?: string; sessions: SessionInfo[] }
  | { type: 'spawn_result'; req_id?: string; session: SessionInfo }
  | { type: 'ack'; req_id?: string; command: string }
  | { type: 'pty_desync'; session_id: string; offset: number; reason: string }
  | { type: 'session_exited'; session_id: string; exit_code: number | null; exit_signal: string | null }
  | { type: 'sessions_changed'; sessions: SessionInfo[] }
  | { type: 'warning'; code: string; message: string };

export type ClientCommand =
  | { type: 'hello'; clientSessionKey: string; protocol: number; client?: string }
  | { type: 'list_sessions'; req_id?: string }
  | { type: 'spawn_session'; req_id?: string; command?: string[]; cwd?: string; label?: string; cols?: number; rows?: number }
  | { type: 'attach_session'; req_id?: string; session_id: string; since?: number; cols?: number; rows?: number; read_only?: boolean }
  | { type: 'detach_session'; req_id?: string; session_id: string }
  | { type: 'pty_input'; session_id: string; data: string }
  | { type: 'pty_resize'; session_id: string; cols: number; rows: number }
  | { type: 'kill_session'; req_id?: string; session_id: string; signal?: string }
  | { type: 'remove_session'; req_id?: string; session_id: string }
  | { type: 'rename_session'; req_id?: string; session_id: string; label: string };

/** Parses one text frame; returns null for anything that is not an object with a string `type`. */
export function parseServerEvent(text: string): ServerEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  if (typeof (value as { type?: unknown }).type !== 'string') return null;
  return value as ServerEvent;
}

/** Replies a request is waiting for carry its req_id; these are the reply types. */
export function isReply(event: ServerEvent): event is ServerEvent & { req_id?: string } {
  switch (event.type) {
    case 'session_list':
    case 'spawn_result':
    case 'attach_result':
    case 'ack':
    case 'command_error':
      return true;
    default:
      return false;
  }
}
