// One line for a person about a failed request.
import { RequestError } from '../client/daemon-client';

export function describeError(error: unknown): string {
  if (error instanceof RequestError) {
    const f = error.failure;
    if (f.kind === 'command_error') return f.error.message;
    if (f.kind === 'disconnected') return `disconnected (${f.reason.kind})`;
    return f.kind.replace('_', ' ');
  }
  return error instanceof Error ? error.message : String(error);
}
