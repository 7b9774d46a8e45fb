// Capped exponential backoff with jitter: attempt n (1-based) waits a random time in
// [ceiling/2, ceiling], where ceiling = min(maxMs, baseMs * 2^(n-1)).

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 250, maxMs: 10_000 };

export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  const unit = Math.min(Math.max(random(), 0), 1);
  return Math.round(ceiling / 2 + (ceiling / 2) * unit);
}
