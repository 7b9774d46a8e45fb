// The client protocol, version 1 (docs/protocol.md). Only what the web UI reads or sends is typed;
// unknown fields and event types are ignored, as the protocol requires.

export const PROTOCOL_VERSION = 1;

export type SessionState = 'starting' | 'running' | 'exited' | 'recoverable';

/** What a session's program is doing (docs/protocol.md, "Activity"); a newer daemon may send others: read them as unknown. */
export type Activity = 'working' | 'waiting_input' | 'pending_approval' | 'idle' | 'unknown';

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
  /** Why a session is recoverable (or what its revive warned about); absent from older daemons. */
  reason?: string | null;
  /** Where its program was last seen working (a revived shell starts there). */
  last_cwd?: string | null;
  /** What its program is doing; absent from older daemons. */
  activity?: Activity | (string & {});
  /** The title its program set (OSC 0/2), when running; absent from older daemons. */
  title?: string | null;
  /** While it waits for a person: the last non-blank line of its screen (what it asks). */
  waiting_line?: string | null;
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

/**
 * How an attachment's output flows (docs/protocol.md, "Flow control"): `live` never holds the
 * session back (a client that falls behind gets `pty_desync`); `lossless` delivers every byte and
 * paces the session by the client's `pty_ack`s.
 */
export type FlowMode = 'live' | 'lossless';

/** The smallest lossless window the daemon accepts, in bytes. */
export const MIN_FLOW_WINDOW = 65536;

/** Why the daemon dropped an attachment; other strings may come from newer daemons. */
export type DesyncReason = 'slow_consumer' | 'output_lost' | 'ack_timeout';

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
  /** The flow granted; absent from daemons that predate lossless (they serve live). */
  flow?: FlowMode;
  /** The lossless credit in bytes; null (or absent) when live. */
  window?: number | null;
  /** This attach started a recoverable session again. */
  revived?: boolean | null;
}

/**
 * The session's terminal took a new size, from stream offset `offset` on (output before it was
 * written at the old size): a viewer resizes its terminal where its output reaches the offset.
 */
export interface SessionResized {
  type: 'session_resized';
  session_id: string;
  cols: number;
  rows: number;
  offset: number;
}

export interface PtyDesync {
  type: 'pty_desync';
  session_id: string;
  /** End offset of the last byte sent; re-attach with `since` = what the tab has. */
  offset: number;
  reason: DesyncReason | (string & {});
}

/** The error codes of docs/protocol.md; a newer daemon may send others. */
export type ErrorCode =
  | 'bad_request' | 'unknown_type' | 'frame_too_large' | 'hello_required' | 'unsupported_protocol'
  | 'invalid_client_session_key' | 'invalid_session_id' | 'ambiguous_session' | 'session_not_found'
  | 'session_not_running' | 'not_attached' | 'read_only' | 'invalid_size' | 'invalid_signal' | 'invalid_label'
  | 'invalid_ack' | 'invalid_flow' | 'invalid_activity' | 'spawn_failed' | 'daemon_recovering' | 'backend_unavailable'
  | 'input_queue_full' | 'session_busy' | 'internal_error';

export interface CommandError {
  type: 'command_error';
  req_id?: string;
  command: string | null;
  session_id?: string;
  code: ErrorCode | (string & {});
  message: string;
  retryable: boolean;
}

export type ServerEvent =
  | InitialState
  | AttachResult
  | CommandError
  | { type: 'session_list'; req_id?: string; sessions: SessionInfo[] }
  | { type: 'spawn_result'; req_id?: string; session: SessionInfo }
  | { type: 'revive_result'; req_id?: string; session: SessionInfo; warnings: string[] }
  | { type: 'ack'; req_id?: string; command: string }
  | PtyDesync
  /** Keys this page typed into the session wait in the daemon (its program's side is slow or stopped); 0: all arrived. */
  | { type: 'input_waiting'; session_id: string; keys: number; bytes: number }
  /** Keys this page typed into the session will never arrive (`session_ended`, `session_removed`, `daemon_stopping`). */
  | { type: 'input_undelivered'; session_id: string; keys: number; bytes: number; reason: string }
  | SessionResized
  | { type: 'session_exited'; session_id: string; exit_code: number | null; exit_signal: string | null }
  | { type: 'sessions_changed'; sessions: SessionInfo[] }
  | { type: 'session_state'; session_id: string; activity: Activity | (string & {}); waiting_line?: string | null }
  | { type: 'warning'; code: string; message: string };

export type ClientCommand =
  | { type: 'hello'; clientSessionKey: string; protocol: number; client?: string }
  | { type: 'list_sessions'; req_id?: string }
  | { type: 'spawn_session'; req_id?: string; command?: string[]; cwd?: string; label?: string; cols?: number; rows?: number }
  | {
    type: 'attach_session'; req_id?: string; session_id: string; since?: number; cols?: number; rows?: number; read_only?: boolean;
    flow?: FlowMode; window?: number;
  }
  | { type: 'detach_session'; req_id?: string; session_id: string }
  /** Scripts' text form of keys; the page sends keys as binary frames only (encodeInput). */
  | { type: 'pty_input'; session_id: string; data: string; reply?: boolean }
  /** This viewer's size: applied while this attachment holds the session's size, else remembered. */
  | { type: 'pty_resize'; session_id: string; cols: number; rows: number }
  /** A person uses this viewer (clicked into it, or asked): the session takes its size. */
  | { type: 'take_size'; session_id: string }
  /** The end offset this client has rendered (xterm's write callback ran); lossless attachments only. */
  | { type: 'pty_ack'; session_id: string; offset: number }
  /** Switches this connection's attachment between live and lossless without re-attaching. */
  | { type: 'pty_flow'; session_id: string; flow: FlowMode; window?: number }
  | { type: 'kill_session'; req_id?: string; session_id: string; signal?: string }
  | { type: 'remove_session'; req_id?: string; session_id: string }
  | { type: 'rename_session'; req_id?: string; session_id: string; label: string }
  /** Starts a recoverable session again; `fresh`: an agent starts a new conversation. */
  | { type: 'revive_session'; req_id?: string; session_id: string; fresh?: boolean };

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
    case 'revive_result':
    case 'ack':
    case 'command_error':
      return true;
    default:
      return false;
  }
}
